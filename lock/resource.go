package lock

import (
	"fmt"
	"slices"
	"sync"
)

// Resource stands for whatever a lock protects, inside the test process:
// it records who is inside a critical section and counts the sections that
// began while another was still open. A correct lock on a healthy cluster
// keeps Overlaps at 0; every pitfall that gives two holders makes it grow.
//
// The zero Resource is ready to use and safe for concurrent use.
type Resource struct {
	mu       sync.Mutex // guards the fields below
	inside   []string   // holders in a critical section now, in order of entry
	sections int
	overlaps []Overlap
}

// Overlap is one critical section that began while others were open.
type Overlap struct {
	// Entrant is the holder whose section began.
	Entrant string `json:"entrant"`
	// Inside are the holders whose sections were open at that moment.
	Inside []string `json:"inside"`
}

// Enter begins who's critical section and returns the function that ends
// it. Calling exit more than once ends the section once.
func (r *Resource) Enter(who string) (exit func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sections++
	if len(r.inside) > 0 {
		r.overlaps = append(r.overlaps, Overlap{Entrant: who, Inside: slices.Clone(r.inside)})
	}
	r.inside = append(r.inside, who)
	var once sync.Once
	return func() { once.Do(func() { r.exit(who) }) }
}

func (r *Resource) exit(who string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if i := slices.Index(r.inside, who); i >= 0 {
		r.inside = slices.Delete(r.inside, i, i+1)
	}
}

// Holders returns who is inside a critical section now, in order of entry.
func (r *Resource) Holders() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.inside)
}

// Sections returns how many critical sections have begun.
func (r *Resource) Sections() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sections
}

// Overlaps returns every section that began while another was open.
func (r *Resource) Overlaps() []Overlap {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.overlaps)
}

// FencedResource is a store that checks fencing tokens, as Kleppmann's
// fencing argument asks of the resource a lock protects: it accepts a
// write whose token is at least the highest it has seen (in a write or a
// Read) and refuses a lower one with ErrStaleToken, so a holder that was superseded while
// paused cannot overwrite its successor. A token of 0 (a recipe without
// tokens) is refused only once a real token has been accepted.
//
// The zero FencedResource is ready to use and safe for concurrent use.
type FencedResource struct {
	mu       sync.Mutex // guards the fields below
	highest  int64
	accepted []Write
	rejected []Write
}

// Write is one write offered to a FencedResource.
type Write struct {
	Token int64  `json:"token"`
	Who   string `json:"who"`
	Value string `json:"value"`
}

// Write stores value on behalf of who, holding token, unless a higher
// token has been accepted.
func (f *FencedResource) Write(token int64, who, value string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	w := Write{Token: token, Who: who, Value: value}
	if token < f.highest {
		f.rejected = append(f.rejected, w)
		return fmt.Errorf("%w: %s wrote with token %d, %d was seen already", ErrStaleToken, who, token, f.highest)
	}
	f.highest = token
	f.accepted = append(f.accepted, w)
	return nil
}

// Highest returns the highest token seen so far, in a write or a Read.
func (f *FencedResource) Highest() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.highest
}

// Read returns the last accepted write (false if none) to a reader
// presenting token, for a read-modify-write: a token below the highest
// seen is refused with ErrStaleToken, and a higher one becomes the highest,
// so a superseded holder that read before its successor cannot write after
// it — fencing the read as well as the write keeps read-modify-writes from
// losing updates. A token of 0 fences nothing.
func (f *FencedResource) Read(token int64, who string) (Write, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if token < f.highest && token != 0 {
		return Write{}, false, fmt.Errorf("%w: %s read with token %d, %d was seen already", ErrStaleToken, who, token, f.highest)
	}
	f.highest = max(f.highest, token)
	if len(f.accepted) == 0 {
		return Write{}, false, nil
	}
	return f.accepted[len(f.accepted)-1], true, nil
}

// Last returns the last accepted write, and false if none was.
func (f *FencedResource) Last() (Write, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.accepted) == 0 {
		return Write{}, false
	}
	return f.accepted[len(f.accepted)-1], true
}

// Accepted returns the accepted writes in the order they were accepted.
func (f *FencedResource) Accepted() []Write {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.accepted)
}

// Rejected returns the refused writes in the order they were offered.
func (f *FencedResource) Rejected() []Write {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.rejected)
}

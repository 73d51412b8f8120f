package bubble

import (
	"bytes"
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// watchdog watches one bubble's clock from outside it, on the wall clock.
// Inside, a heartbeat stamps the bubble's clock every heartbeat of virtual
// time; outside, watch sees whether the stamp still moves.
type watchdog struct {
	opts     Options
	id       atomic.Int64  // the bubble's id, read from its own stack; 0 until it starts
	stamp    atomic.Int64  // the bubble's clock at its last heartbeat, in UnixNano; 0 until it starts
	finished atomic.Bool   // f has returned: the bubble is only winding down
	fin      chan struct{} // made and closed in the bubble; ends the heartbeat
	done     chan struct{} // closed by stop; ends watch
	exited   chan struct{} // closed when watch has returned

	mu    sync.Mutex      // guards the fields below, written by watch and read by Progress
	since time.Time       // when, in wall time, the stamp last moved
	looks int             // stacks taken since the stamp last moved
	hot   map[string]*Hot // "goroutine N" → it, as last seen, and the looks that found it not durably blocked
}

// wallTick is how often, in wall time, the watchdog looks at the stamp.
const wallTick = 250 * time.Millisecond

func newWatchdog(opts Options) *watchdog {
	return &watchdog{opts: opts, done: make(chan struct{}), exited: make(chan struct{}), since: time.Now()}
}

// start runs in the bubble before f: it learns the bubble's id and starts
// the heartbeat, a bubbled goroutine that ends when f has returned.
func (w *watchdog) start() {
	w.id.Store(int64(currentBubble()))
	w.stamp.Store(time.Now().UnixNano())
	w.fin = make(chan struct{})
	fin := w.fin
	go func() {
		tick := time.NewTicker(heartbeat)
		defer tick.Stop()
		for {
			select {
			case <-fin:
				return
			case now := <-tick.C:
				w.stamp.Store(now.UnixNano())
			}
		}
	}()
}

// finish runs in the bubble once f has returned.
func (w *watchdog) finish() {
	w.finished.Store(true)
	close(w.fin)
}

func (w *watchdog) bubbleID() int { return int(w.id.Load()) }

// watch runs outside the bubble until stop, and reports the bubble frozen
// once its stamp has stood still for opts.FrozenAfter of wall time while f
// had not returned.
func (w *watchdog) watch() {
	defer close(w.exited)
	tick := time.NewTicker(wallTick)
	defer tick.Stop()
	last, since := int64(0), time.Now()
	for {
		select {
		case <-w.done:
			return
		case now := <-tick.C:
			stamp := w.stamp.Load()
			if stamp != last || stamp == 0 || w.finished.Load() {
				last, since = stamp, now
				w.moved(now)
				continue
			}
			if now.Sub(since) < min(lookAfter, w.opts.FrozenAfter) {
				continue // CPU work between two beats of the clock, most likely
			}
			stacks, running, suspects := bubbleStacks(w.bubbleID())
			w.look(running)
			if now.Sub(since) < w.opts.FrozenAfter {
				continue
			}
			f := w.report(now)
			f.Stacks, f.Running, f.Suspects = stacks, running, suspects
			if w.finished.Load() || f.Stacks == "" {
				// f returned while the stacks were taken: the bubble is
				// winding down, not frozen.
				continue
			}
			if busy(f.Running) && now.Sub(since) < busyFor*w.opts.FrozenAfter {
				// A goroutine is on the CPU — a long check, say — and holds
				// the clock while it works: that is no freeze, unless it
				// goes on for far longer.
				continue
			}
			if w.opts.OnFrozen != nil {
				w.opts.OnFrozen(f)
			} else {
				panic(f.Error())
			}
			return
		}
	}
}

// lookAfter is how long the clock must stand still before the watchdog
// starts looking at what runs (taking every goroutine's stack stops the
// world for a moment): a second, past the CPU work a healthy run does
// between two beats of its clock.
const lookAfter = time.Second

// moved notes that the bubble's clock moved: what ran while it stood still
// is forgotten.
func (w *watchdog) moved(now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.since, w.looks, w.hot = now, 0, nil
}

// look counts, in one look at a clock that stood still, the goroutines
// that were not durably blocked: those that ran, or wanted to.
func (w *watchdog) look(running []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.looks++
	if w.hot == nil {
		w.hot = map[string]*Hot{}
	}
	for _, g := range running {
		// Without its state ("[runnable, synctest bubble 3]"), which
		// changes from look to look, as does the function it is in.
		i, j := strings.Index(g, " ["), strings.Index(g, "]")
		if i < 0 || j < i {
			continue
		}
		h := w.hot[g[:i]]
		if h == nil {
			h = &Hot{}
			w.hot[g[:i]] = h
		}
		h.Goroutine = g[:i] + g[j+1:]
		h.Looks++
	}
}

// report says how far the bubble got at now: where its clock stands, since
// when in wall time, the last event its run recorded, and the goroutines
// that ran most since.
func (w *watchdog) report(now time.Time) *Frozen {
	f := &Frozen{Name: w.opts.Name, Virtual: time.Unix(0, w.stamp.Load()).UTC()}
	if w.opts.LastEvent != nil {
		f.Event = w.opts.LastEvent()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	f.Wall = now.Sub(w.since)
	f.Looks = w.looks
	for _, h := range w.hot {
		f.Hot = append(f.Hot, *h)
	}
	slices.SortFunc(f.Hot, func(a, b Hot) int {
		if a.Looks != b.Looks {
			return b.Looks - a.Looks
		}
		return strings.Compare(a.Goroutine, b.Goroutine)
	})
	if len(f.Hot) > maxHot {
		f.Hot = f.Hot[:maxHot]
	}
	return f
}

// maxHot is how many goroutines a report names among those that ran most.
const maxHot = 5

// busyFor is how many times FrozenAfter a bubble whose goroutines are on
// the CPU may hold its clock before the watchdog reports it frozen anyway
// (a goroutine that spins).
const busyFor = 10

// busy reports whether any of the goroutines is running or runnable.
func busy(headers []string) bool {
	for _, h := range headers {
		if strings.Contains(h, "[running") || strings.Contains(h, "[runnable") {
			return true
		}
	}
	return false
}

// stop ends watch and waits for it.
func (w *watchdog) stop() {
	close(w.done)
	<-w.exited
}

// Frozen describes a bubble whose clock stood still, or (Progress) how far
// a bubble still running has got.
type Frozen struct {
	Name    string        // the bubble's name (Options.Name)
	Wall    time.Duration // how long, in wall time, its clock stood still
	Virtual time.Time     // where its clock stood
	// Event is the last event its run recorded, as Options.LastEvent says
	// it; "" if none is said.
	Event string
	// Hot is the goroutines that were not durably blocked — on the CPU or
	// wanting it — in the most of the looks the watchdog took, every
	// quarter second of wall time, while the clock stood still: a goroutine
	// that spins is in nearly every one. Looks is how many looks it took.
	Hot   []Hot
	Looks int
	// Running lists the header lines of the bubble's goroutines that were
	// not durably blocked: running, runnable, in a syscall, waiting on a
	// mutex or a socket. One of them holds the clock.
	Running []string
	// Stacks is every goroutine of the bubble, as runtime.Stack prints them.
	Stacks string
	// Suspects is the stacks of the goroutines Running names: the few that
	// matter among the hundreds a cluster has.
	Suspects string
}

// Hot is a goroutine and how many of the watchdog's looks found it not
// durably blocked.
type Hot struct {
	Goroutine string // its number and the first function of note it was in at the last look
	Looks     int
}

func (f *Frozen) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "bubble: %s: the virtual clock stood still at %s for %v of wall time while the run was unfinished",
		f.Name, f.Virtual.Format("15:04:05.000"), f.Wall.Round(time.Second))
	f.writeProgress(&b)
	if len(f.Running) == 0 {
		b.WriteString("; every goroutine was durably blocked (a CPU-bound step, or a goroutine outside the bubble, held it)")
	} else {
		fmt.Fprintf(&b, "; not durably blocked: %s", strings.Join(f.Running, "; "))
	}
	for _, r := range f.Running {
		if strings.Contains(r, "[IO wait") {
			b.WriteString(". A goroutine waiting on a real socket never counts as blocked, so the clock cannot move while one lives in the bubble: " +
				"serve and dial on the cluster's in-memory network instead (cluster.Cluster.ListenService and DialOptions)")
			break
		}
	}
	return b.String()
}

// Progress says how far the bubble had got, in a line: the last event
// its run recorded and the goroutines that ran most while the clock stood
// still.
func (f *Frozen) Progress() string {
	var b strings.Builder
	fmt.Fprintf(&b, "bubble: %s: the virtual clock stands at %s", f.Name, f.Virtual.Format("15:04:05.000"))
	if f.Wall >= wallTick {
		fmt.Fprintf(&b, ", where it has stood for %v of wall time", f.Wall.Round(100*time.Millisecond))
	}
	f.writeProgress(&b)
	return b.String()
}

func (f *Frozen) writeProgress(b *strings.Builder) {
	if f.Event != "" {
		fmt.Fprintf(b, "; the last event recorded: %s", f.Event)
	}
	if len(f.Hot) > 0 {
		b.WriteString("; ran most since the clock last moved: ")
		for i, h := range f.Hot {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(b, "%s (in %d of %d looks)", h.Goroutine, h.Looks, f.Looks)
		}
	}
}

// Stuck is Run's error when a bubble would not end: its main function
// returned but goroutines it started stayed blocked, or every goroutine
// blocked with no timer to wake one.
type Stuck struct {
	Reason string   // what synctest said
	Left   []string // the header lines of the goroutines left in the bubble
	Stacks string   // their stacks
}

func (s *Stuck) Error() string {
	msg := fmt.Sprintf("bubble: %s; %d goroutines left: %s", s.Reason, len(s.Left), strings.Join(s.Left, "; "))
	if strings.Contains(s.Reason, "main bubble goroutine has exited") {
		msg += ". Each was started during the run and outlived it, blocked for good: whatever started it must stop it and wait for it before the run ends. " +
			"For a recipe that means a method Close() error on its recipe value (the Locker, Elector, Registrar, Resolver…), which is called when its process crashes and when the run ends, " +
			"stopping what the recipe started for that process — its goroutines, a lease.Guard it keeps, a client its library dialed; " +
			"where the goroutine is a library's that offers no way to stop it, the leak is the library's"
	}
	return msg
}

func stuck(reason string, id int) *Stuck {
	stacks, _, _ := bubbleStacks(id)
	var left []string
	for _, g := range splitGoroutines(stacks) {
		left = append(left, describe(g))
	}
	return &Stuck{Reason: reason, Left: left, Stacks: stacks}
}

var bubbleRE = regexp.MustCompile(`, synctest bubble (\d+)`)

// currentBubble returns the id of the calling goroutine's bubble, or 0.
func currentBubble() int {
	buf := make([]byte, 1024)
	buf = buf[:runtime.Stack(buf, false)]
	header, _, _ := bytes.Cut(buf, []byte("\n"))
	if m := bubbleRE.FindSubmatch(header); m != nil {
		id, _ := strconv.Atoi(string(m[1]))
		return id
	}
	return 0
}

// bubbleStacks returns the stacks of bubble id's goroutines (every
// goroutine's if id is 0) and the header lines of those not durably
// blocked.
func bubbleStacks(id int) (stacks string, running []string, suspects string) {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var b, sus strings.Builder
	for _, g := range splitGoroutines(string(buf)) {
		header, _, _ := strings.Cut(g, "\n")
		if id != 0 && !strings.Contains(header, fmt.Sprintf(", synctest bubble %d]", id)) &&
			!strings.Contains(header, fmt.Sprintf(", synctest bubble %d,", id)) {
			continue
		}
		b.WriteString(g)
		b.WriteString("\n\n")
		if !strings.Contains(header, "(durable)") {
			running = append(running, describe(g))
			sus.WriteString(g)
			sus.WriteString("\n\n")
		}
	}
	return b.String(), running, sus.String()
}

func splitGoroutines(dump string) []string {
	var out []string
	for g := range strings.SplitSeq(strings.TrimSpace(dump), "\n\n") {
		if strings.HasPrefix(g, "goroutine ") {
			out = append(out, g)
		}
	}
	return out
}

// describe names a goroutine by its header and the first function of its
// stack that is not the runtime's or the standard library's waiting code.
func describe(g string) string {
	lines := strings.Split(g, "\n")
	header := strings.TrimSuffix(lines[0], ":")
	for i := 1; i < len(lines); i += 2 {
		fn := lines[i]
		if strings.HasPrefix(fn, "runtime.") || strings.HasPrefix(fn, "internal/") || strings.HasPrefix(fn, "sync.") || strings.HasPrefix(fn, "sync/") || strings.HasPrefix(fn, "time.") {
			continue
		}
		if j := strings.LastIndex(fn, "("); j > 0 {
			fn = fn[:j]
		}
		return header + " in " + fn
	}
	return header
}

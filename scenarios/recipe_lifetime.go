package scenarios

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/discovery"
	"github.com/etcdsim/etcdsim/election"
	"github.com/etcdsim/etcdsim/internal/bubble"
)

// The lifetime of a simulated process's recipe values, one mechanism for
// every family. Each value a family's constructor returns (construct
// adopts it) belongs to the process of its client until that process
// ends: when the process crashes — the workload then makes a new value for
// the same client, and adopt closes the old one — or when the run ends
// (ending, then endAll once the faults are healed). A value with a method Close() error (io.Closer) is closed
// exactly once, then, on the run's clock: a Close that panics, fails or
// does not return within closeLimit is the recipe's fault, said in a
// sentence (Result.RecipeFaults), and the run is judged all the same.

// closeLimit is how long, on the run's clock, a recipe's Close may take
// before the run goes on without it, and lateLimit how much longer the
// run's end waits for one that outlived closeLimit: past it, a Close still
// running is left behind, and named again when the run's bubble ends
// (leftSentence). A virtual run's bubble cannot wait for it after that:
// its clock stops when the run's main goroutine returns.
const (
	closeLimit = 10 * time.Second
	lateLimit  = 5 * closeLimit
)

// procValue is one recipe value of one process.
type procValue struct {
	family, recipe string // the recipe's family and name
	client         string // the client whose process it serves
	what           string // its type in the family's interface: "lock.Locker"
	v              any
	crashed        bool // its process crashed: Close cannot reach etcd, and an error it returns is no fault
	recorded       bool // the workload records what Close returns (a deregistration): an error is its outcome, no fault

	once sync.Once
	err  error // what Close returned, or what it did wrong
}

// lifetimes are the recipe values of a run's processes.
type lifetimes struct {
	mu   sync.Mutex            // guards live, made and returns
	live map[string]*procValue // the running processes' values, by client and what
	made []madeValue           // each kind of value made, once
	bg   sync.WaitGroup        // the Close calls of crashed processes' values
	// returns has a channel for every Close call, closed as it returns.
	returns []chan struct{}
}

// madeValue is a kind of recipe value a run made: what the sentence on
// goroutines left behind names.
type madeValue struct {
	family, recipe, what string
	typ                  string // its dynamic type: "*mylock.Locker"
	closer               bool   // it has a Close method
}

// adopt makes v the recipe value (of type what) of client's process, made
// by recipe of family. A value the client's process had before is a
// crashed process's: it is closed, apart from the workload, which goes
// on with v. A value that runs in a program of its own (a process recipe)
// is handed to the faults, whose pause stops that program.
func (w *world) adopt(family, recipe, client, what string, v any) {
	attachProcess(w.env, client, v)
	l := &w.lives
	p := &procValue{family: family, recipe: recipe, client: client, what: what, v: v}
	key := client + "\x00" + what
	l.mu.Lock()
	if l.live == nil {
		l.live = make(map[string]*procValue)
	}
	old := l.live[key]
	m := madeValue{family: family, recipe: recipe, what: what, typ: fmt.Sprintf("%T", v)}
	_, m.closer = v.(io.Closer)
	if !slices.Contains(l.made, m) {
		l.made = append(l.made, m)
	}
	for _, q := range l.live {
		if q != old && sameValue(q.v, v) {
			w.notes.add("%s recipe %q: New returned the same %T to clients %s and %s; each process needs a value of its own, since closing one process's (when it crashes) closes the other's too",
				family, recipe, v, q.client, client)
			p = q // closed once, for both
			break
		}
	}
	l.live[key] = p
	l.mu.Unlock()
	if old == nil || old == p {
		return
	}
	old.crashed = true
	l.bg.Go(func() { w.closeValue(old) })
}

// retire closes now, and once, the value (of type what) of client's
// process, as the workload ends that process in order — a registrar's
// Close is its deregistration — and returns what Close returned, which
// the workload records: an error is the operation's outcome, not noted
// as a fault (faults may still be in force). It is nil for a value with
// no Close.
func (w *world) retire(client, what string) error {
	l := &w.lives
	l.mu.Lock()
	p := l.live[client+"\x00"+what]
	l.mu.Unlock()
	if p == nil {
		return nil
	}
	p.once.Do(func() { p.recorded = true; w.close(p) })
	return p.err
}

// ending takes, as the workload ends, every value of every process not
// closed yet, for endAll; a process down then counts as crashed.
func (w *world) ending() []*procValue {
	l := &w.lives
	l.mu.Lock()
	defer l.mu.Unlock()
	var last []*procValue
	for _, p := range l.live {
		if slices.Contains(last, p) {
			continue // one value two clients share
		}
		if _, err := w.env.Cluster().Client(p.client); errors.Is(err, cluster.ErrCrashed) {
			p.crashed = true
		}
		last = append(last, p)
	}
	l.live = nil
	return last
}

// endAll closes the values ending took, all at once, once the faults are
// healed — an error a Close returns is then the recipe's, not a partition's
// — and waits for them and for the crashed processes' Close calls, each at
// most closeLimit.
func (w *world) endAll(last []*procValue) {
	var wg sync.WaitGroup
	for _, p := range last {
		wg.Go(func() { w.closeValue(p) })
	}
	wg.Wait()
	w.lives.bg.Wait()
	w.lives.mu.Lock()
	returns := w.lives.returns
	w.lives.mu.Unlock()
	t := time.NewTimer(lateLimit)
	defer t.Stop()
	for _, r := range returns {
		select {
		case <-r:
		case <-t.C:
			return
		}
	}
}

// sameValue reports whether a and b are one value: the same pointer, say.
func sameValue(a, b any) bool {
	ra, rb := reflect.ValueOf(a), reflect.ValueOf(b)
	if !ra.IsValid() || !rb.IsValid() || ra.Type() != rb.Type() || !ra.Comparable() || !rb.Comparable() {
		return false
	}
	switch ra.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Chan, reflect.UnsafePointer:
		return ra.Equal(rb)
	}
	return false // a struct value copied for two clients is two values
}

// closeValue calls p's Close, if it has one, once. A Close that panics,
// returns an error (unless its process had crashed: its client is closed,
// so whatever it asks of etcd fails, and its leases expire of themselves),
// or does not return within closeLimit on the run's clock is noted as the
// recipe's fault. One that never returns is left behind, and named again
// when the run ends (see Run).
func (w *world) closeValue(p *procValue) {
	p.once.Do(func() { w.close(p) })
}

// close is closeValue's body, called once.
func (w *world) close(p *procValue) {
	c, ok := p.v.(io.Closer)
	if !ok || isNil(p.v) {
		return
	}
	done := make(chan error, 1)
	returned := make(chan struct{})
	w.lives.mu.Lock()
	w.lives.returns = append(w.lives.returns, returned)
	w.lives.mu.Unlock()
	go func() {
		defer close(returned)
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("panicked: %v", r)
			}
		}()
		if err := c.Close(); err != nil {
			done <- fmt.Errorf("returned an error: %w", err)
			return
		}
		done <- nil
	}()
	t := time.NewTimer(closeLimit)
	defer t.Stop()
	select {
	case p.err = <-done:
		if b, ok := p.v.(interface{ Bypassing() string }); ok && b.Bypassing() != "" {
			// A program that dialed around its client's links (package
			// program): the faults never reached it.
			w.notes.addOnce(fmt.Sprintf("%s recipe %q: client %s: %s", p.family, p.recipe, p.client, b.Bypassing()))
		}
	case <-t.C:
		p.err = fmt.Errorf("did not return within %v on the run's clock", closeLimit)
		w.notes.add("%s recipe %q: Close of client %s's %s (%T) did not return within %v on the run's clock; Close must stop and wait for what the recipe started for the process without waiting on etcd, which a crashed process cannot reach, and return",
			p.family, p.recipe, p.client, p.what, p.v, closeLimit)
		return
	}
	if p.err == nil || ((p.crashed || p.recorded) && !strings.HasPrefix(p.err.Error(), "panicked")) {
		return
	}
	msg := fmt.Sprintf("%s recipe %q: Close of client %s's %s (%T) %v; Close must stop what the recipe started for the process and return nil",
		p.family, p.recipe, p.client, p.what, p.v, p.err)
	if closedBefore(p.err) {
		msg += "; it found the value closed before — the scenarios call Close once for each process, when it crashes or when the run ends, so something else closed it first " +
			"(the recipe, or its library, when its session ended, say): a Close called again must return nil, as one behind a sync.Once does"
	}
	w.notes.add("%s", msg)
}

// closedBefore reports whether err, a Close's, says the value had been
// closed already: a panic on closing a closed channel, or an error of the
// kind a closed value returns.
func closedBefore(err error) bool {
	s := err.Error()
	return strings.Contains(s, "close of closed channel") || strings.Contains(s, "already closed") ||
		errors.Is(err, election.ErrClosed) || errors.Is(err, discovery.ErrClosed) || errors.Is(err, net.ErrClosed) || errors.Is(err, os.ErrClosed)
}

// harnessCode are the packages whose goroutines, left behind by a run, are
// the harness's to answer for, not the recipe's.
var harnessCode = []string{
	"github.com/etcdsim/etcdsim/scenarios.", "github.com/etcdsim/etcdsim/cluster.", "github.com/etcdsim/etcdsim/faults.",
	"github.com/etcdsim/etcdsim/checker.", "github.com/etcdsim/etcdsim/internal/", "go.etcd.io/etcd/server/",
}

// leftBehind turns berr, the error of a virtual run's bubble that would
// not end because goroutines the run started outlived it, into a sentence
// on the recipe that started them, naming them and what to implement;
// false if berr is something else, or a goroutine left is the harness's.
// made are the kinds of recipe values the run made.
func leftBehind(s Scenario, made []madeValue, berr error) (string, bool) {
	var st *bubble.Stuck
	if !errors.As(berr, &st) || !strings.Contains(st.Reason, "main bubble goroutine has exited") || len(st.Left) == 0 {
		return "", false
	}
	for _, g := range st.Left {
		for _, h := range harnessCode {
			if strings.Contains(g, " in "+h) {
				return "", false
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s recipe %q left %d goroutines behind when the run ended, blocked for good: %s; ",
		s.Workload.Family, s.Workload.Recipe, len(st.Left), strings.Join(st.Left, "; "))
	var fix []string
	for _, m := range made {
		if m.closer {
			fix = append(fix, fmt.Sprintf("its %s (%s) has a Close, which the scenarios called for every process, and these outlived it: Close must stop them and wait for them before it returns", m.what, m.typ))
		} else {
			fix = append(fix, fmt.Sprintf("implement Close() error on its %s (%s): the scenarios call it when the process crashes and when the run ends, and it must stop and wait for what the recipe started for the process — its goroutines, a lease it keeps alive, a client its library dialed", m.what, m.typ))
		}
	}
	if len(fix) == 0 {
		fix = append(fix, "the recipe's value must have a Close() error that stops them; the scenarios call it when the process crashes and when the run ends")
	}
	b.WriteString(strings.Join(fix, "; "))
	fmt.Fprintf(&b, "; they are goroutines of %s%s: where one is a library's that offers no way to stop it (a client the library keeps for the process's life and never closes, say), "+
		"the leak is the library's, and the library cannot run on the virtual clock, whose run ends only once every goroutine it started has returned: "+
		"run its scenarios on the real clock (Cluster.RealClock saying why, or simrun's -clock real)", strings.Join(leftPackages(st.Left), ", "), through(st.Left, st.Stacks))
	return b.String(), true
}

// through says which packages other than the standard library's the
// stacks of the goroutines left pass through or were started from — the
// library that started a goroutine waiting in gRPC, say — or "" if none
// but those of their first functions (in left's header lines).
func through(left []string, stacks string) string {
	var pkgs []string
	seen := map[string]bool{}
	for _, g := range left {
		if _, fn, ok := strings.Cut(g, "] in "); ok {
			seen[packageOf(fn)] = true
		}
	}
	for line := range strings.Lines(stacks) {
		if strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "goroutine ") {
			continue
		}
		fn := strings.TrimPrefix(strings.TrimSpace(line), "created by ")
		if i := strings.LastIndex(fn, " in goroutine "); i >= 0 {
			fn = fn[:i]
		}
		if i := strings.LastIndexByte(fn, '('); i > 0 && strings.HasSuffix(fn, ")") {
			fn = fn[:i] // the arguments
		}
		pkg := packageOf(fn)
		if first, _, _ := strings.Cut(pkg, "/"); !strings.Contains(first, ".") || seen[pkg] {
			continue // the standard library's, or named already
		}
		seen[pkg] = true
		pkgs = append(pkgs, pkg)
	}
	if len(pkgs) == 0 {
		return ""
	}
	return ", whose stacks run through " + strings.Join(pkgs, ", ")
}

// packageOf returns the package of a function's full name:
// "example.com/lib.(*T).loop" is in "example.com/lib".
func packageOf(fn string) string {
	slash := max(strings.LastIndexByte(fn, '/'), 0)
	if dot := strings.IndexByte(fn[slash:], '.'); dot >= 0 {
		return fn[:slash+dot]
	}
	return fn
}

// leftPackages returns the packages of the functions the goroutines left
// are in (header lines "goroutine 7 [chan receive] in example.com/lib.(*T).loop"),
// each with how many, in the order first seen.
func leftPackages(left []string) []string {
	var pkgs []string
	count := map[string]int{}
	for _, g := range left {
		_, fn, ok := strings.Cut(g, "] in ")
		if !ok {
			continue
		}
		pkg := packageOf(fn)
		if count[pkg] == 0 {
			pkgs = append(pkgs, pkg)
		}
		count[pkg]++
	}
	for i, p := range pkgs {
		pkgs[i] = fmt.Sprintf("%s (%d)", p, count[p])
	}
	return pkgs
}

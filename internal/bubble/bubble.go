package bubble

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// ErrNoHost is returned by Run when no *testing.T can open a bubble: the
// program did not start under Host and no test called UseT.
var ErrNoHost = errors.New("bubble: the virtual clock needs a host: run the program's main under bubble.Host (simrun.Main does), call bubble.UseT in a test, or use the real clock")

var (
	hostMu sync.Mutex // guards host
	host   *testing.T
)

// Host runs main as the single test of an in-process testing.Main, so that
// Run can open bubbles, and exits the process with main's code. It never
// returns. Call it from a program's main function, with everything the
// program does inside main.
//
// Why this way: testing/synctest opens a bubble only for a *testing.T, and
// the runtime's own entry point (internal/synctest.Run) refuses a
// go:linkname from outside the standard library at link time. testing.Main
// is exported for the code go test generates and builds the same *testing.T
// a test gets, with no extra build step or flag: go run and go build work
// as they are. Its flags are registered on flag.CommandLine (as test.*) and
// marked parsed with no arguments, so testing never reads the program's own
// arguments; the program parses its flags with a FlagSet of its own, or
// calls flag.Parse again.
func Host(main func() int) {
	if Hosted() {
		os.Exit(main())
	}
	testing.Init()
	if !flag.Parsed() {
		flag.CommandLine.Parse(nil) //nolint:errcheck // no arguments: nothing to reject
	}
	tests := []testing.InternalTest{{Name: "etcdsim", F: func(t *testing.T) {
		setHost(t)
		// Exit here, inside the test: testing.Main would otherwise print
		// PASS or FAIL and choose the exit code itself.
		os.Exit(main())
	}}}
	testing.Main(func(string, string) (bool, error) { return true, nil }, tests, nil, nil)
}

// UseT makes t the host of the bubbles that Run opens until t ends. It is
// for tests that call code which opens bubbles itself (a simrun run in
// process, say); code that has t at hand can call Test directly.
func UseT(t *testing.T) {
	hostMu.Lock()
	prev := host
	host = t
	hostMu.Unlock()
	t.Cleanup(func() {
		hostMu.Lock()
		host = prev
		hostMu.Unlock()
	})
}

func setHost(t *testing.T) {
	hostMu.Lock()
	host = t
	hostMu.Unlock()
}

// Hosted reports whether Run has a *testing.T to open bubbles with.
func Hosted() bool {
	hostMu.Lock()
	defer hostMu.Unlock()
	return host != nil
}

// Options shape Run. The zero Options are the defaults each field names.
type Options struct {
	// Host is the *testing.T whose subtest the bubble runs in. nil means
	// the process's host: Host's, or the latest UseT's.
	Host *testing.T
	// Name names the subtest the bubble runs in. "" means "bubble".
	Name string
	// FrozenAfter is how long, in wall time, the bubble's clock may stand
	// still while f has not returned before the bubble counts as frozen.
	// 0 means DefaultFrozenAfter. CPU-bound work (a long linearizability
	// check, say) holds the clock too: while a goroutine of the bubble is
	// running or runnable, the bubble counts as frozen only after ten
	// times as long.
	FrozenAfter time.Duration
	// OnFrozen is called, from a goroutine outside the bubble, when the
	// bubble freezes. A frozen bubble cannot be unblocked from outside, so
	// OnFrozen should end the process (a child process writes its harness
	// failure and exits). nil means panic with the report.
	OnFrozen func(*Frozen)
	// LastEvent, if set, says the last event the run in the bubble
	// recorded ("c2 acquire /lock ok at 3.1s"), for Frozen and Progress to
	// say how far it got. It is called from outside the bubble and must not
	// block. nil says none.
	LastEvent func() string
}

// DefaultFrozenAfter is how long a bubble's clock may stand still in wall
// time before Run reports it frozen.
const DefaultFrozenAfter = 60 * time.Second

// heartbeat is how often, in virtual time, a bubble stamps its clock for
// the watchdog outside.
const heartbeat = 100 * time.Millisecond

// Inside reports whether the calling goroutine runs in a synctest bubble.
// A bubble's clock starts at midnight UTC on 2000-01-01, and no bubble runs
// for years of virtual time, while no machine that runs etcd has its clock
// set to that year.
func Inside() bool { return time.Now().Before(bubbleEpochEnd) }

var bubbleEpochEnd = time.Date(2001, time.January, 1, 0, 0, 0, 0, time.UTC)

// Test runs f in a bubble of t's own, as synctest.Test does, with the
// watchdog of Run. Use it in a test whose code runs entirely in the bubble.
func Test(t *testing.T, opts Options, f func(t *testing.T)) {
	t.Helper()
	if err := run(t, opts, func(bt *testing.T) error { f(bt); return nil }, false); err != nil {
		t.Fatal(err)
	}
}

// Run runs f in a new bubble on a subtest of the host (see Host and UseT),
// and returns f's error once f and every goroutine it started have ended.
// Many Runs may go on at once from different goroutines. A bubble whose
// goroutines do not all end is an error (a *Stuck naming them); a bubble
// whose clock freezes goes to opts.OnFrozen.
func Run(opts Options, f func() error) error {
	t := opts.Host
	if t == nil {
		hostMu.Lock()
		t = host
		hostMu.Unlock()
	}
	if t != nil {
		return run(t, opts, func(*testing.T) error { return f() }, true)
	}
	if !testing.Testing() {
		return ErrNoHost
	}
	// In a test binary a test of its own hosts the bubble: code that
	// gets no *testing.T — an example, a benchmark, a helper — runs too.
	var err error
	if herr := hosting(func(t *testing.T) { err = run(t, opts, func(*testing.T) error { return f() }, false) }); herr != nil {
		return herr
	}
	return err
}

func run(t *testing.T, opts Options, f func(*testing.T) error, subtest bool) (err error) {
	if opts.Name == "" {
		opts.Name = "bubble"
	}
	if opts.FrozenAfter == 0 {
		opts.FrozenAfter = DefaultFrozenAfter
	}
	w := newWatchdog(opts)
	go w.watch()
	defer w.stop()
	open.add(w)
	defer open.remove(w)
	body := func(t *testing.T) {
		defer func() {
			// synctest panics in the test's goroutine when the bubble's
			// main function returned but goroutines it started remain
			// blocked, or when every goroutine is blocked with no timer
			// left: both leave the goroutines in place to be named.
			if r := recover(); r != nil {
				err = stuck(fmt.Sprint(r), w.bubbleID())
			}
		}()
		synctest.Test(t, func(bt *testing.T) {
			w.start()
			defer w.finish()
			err = f(bt)
		})
	}
	if !subtest {
		body(t)
		return err
	}
	t.Run(opts.Name, body)
	return err
}

// Hosting runs f with a host for Run, for code that has no *testing.T to
// give — a benchmark, say — inside a test binary: it opens one with
// testing.RunTests, which go test has set up. f runs as a test: t.Fatal
// and friends are not for it; it reports through its own values.
func Hosting(f func()) error {
	return hosting(func(t *testing.T) {
		UseT(t)
		f()
	})
}

// hosting runs f as a test of its own, with testing.RunTests.
//
// Under go test -v, testing.RunTests announces the host test (=== RUN,
// --- PASS) on os.Stdout, which an Example captures as its output. So for
// as long as RunTests sets the host up, os.Stdout is the null device: the
// announcements go to the writer testing took then, and the host test puts
// os.Stdout back first thing. Hosts set up one at a time (stdoutMu), since
// several bubbles may start at once in parallel tests; without -v os.Stdout
// is not touched.
// stdoutMu keeps hosts from swapping os.Stdout at once.
var stdoutMu sync.Mutex

func hosting(f func(t *testing.T)) error {
	ran := false
	restore := func() {}
	if testing.Verbose() {
		stdoutMu.Lock()
		stdout := os.Stdout
		var once sync.Once
		restore = func() {
			once.Do(func() {
				os.Stdout = stdout
				stdoutMu.Unlock()
			})
		}
		if null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0); err == nil {
			os.Stdout = null
			defer null.Close()
		}
	}
	ok := testing.RunTests(func(string, string) (bool, error) { return true, nil },
		[]testing.InternalTest{{Name: "bubble-host", F: func(t *testing.T) {
			restore()
			ran = true
			f(t)
		}}})
	restore()
	switch {
	case !ran:
		return errors.New("bubble: Hosting: testing ran no host test; call it from a test binary's test or benchmark")
	case !ok:
		return errors.New("bubble: Hosting: the host test failed")
	}
	return nil
}

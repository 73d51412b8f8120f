package bubble_test

import (
	"context"
	"errors"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/etcdsim/etcdsim/internal/bubble"
)

// leftBehind stays blocked in its bubble for good, on purpose.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/etcdsim/etcdsim/internal/bubble_test.leftBehind"))
}

func TestRunMovesTheVirtualClock(t *testing.T) {
	bubble.UseT(t)
	wall := time.Now()
	var slept time.Duration
	var inside bool
	err := bubble.Run(bubble.Options{Name: "sleep"}, func() error {
		inside = bubble.Inside()
		t0 := time.Now()
		time.Sleep(time.Hour)
		slept = time.Since(t0)
		return errors.New("from the bubble")
	})
	if err == nil || err.Error() != "from the bubble" {
		t.Errorf("Run returned %v; want f's error", err)
	}
	if slept != time.Hour || !inside {
		t.Errorf("in the bubble: slept %v (want 1h), Inside %v (want true)", slept, inside)
	}
	if bubble.Inside() {
		t.Error("Inside is true outside any bubble")
	}
	t.Logf("an hour of virtual time took %v of wall time", time.Since(wall))
}

func TestRunsGoOnSideBySide(t *testing.T) {
	bubble.UseT(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			errs[i] = bubble.Run(bubble.Options{}, func() error {
				time.Sleep(time.Duration(i+1) * time.Minute)
				return nil
			})
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}

// In a test binary code with no *testing.T to give opens bubbles too.
func TestWithoutHostATestBinaryHostsItself(t *testing.T) {
	var slept time.Duration
	err := bubble.Run(bubble.Options{}, func() error {
		t0 := time.Now()
		time.Sleep(time.Minute)
		slept = time.Since(t0)
		return nil
	})
	if err != nil || slept != time.Minute {
		t.Fatalf("Run without a host: %v, slept %v; want nil and 1m", err, slept)
	}
}

func TestABubbleThatWillNotEndNamesWhatIsLeft(t *testing.T) {
	bubble.UseT(t)
	err := bubble.Run(bubble.Options{Name: "leaky"}, func() error {
		go leftBehind(make(chan struct{}))
		return nil
	})
	var s *bubble.Stuck
	if !errors.As(err, &s) {
		t.Fatalf("Run = %v; want a *bubble.Stuck", err)
	}
	if len(s.Left) != 1 || !strings.Contains(s.Left[0], "leftBehind") {
		t.Errorf("Stuck.Left = %q; want the one goroutine in leftBehind", s.Left)
	}
	if msg := err.Error(); !strings.Contains(msg, "leftBehind") || !strings.Contains(msg, "Close() error") {
		t.Errorf("Stuck's sentence %q names neither the goroutine nor the Close that would stop it", msg)
	}
}

func leftBehind(release chan struct{}) { <-release }

func TestAFrozenClockIsReportedWithTheGoroutineThatHeldIt(t *testing.T) {
	bubble.UseT(t)
	frozen := make(chan *bubble.Frozen, 1)
	var mu sync.Mutex
	mu.Lock() // held outside the bubble: a goroutine waiting on it is not durably blocked
	err := bubble.Run(bubble.Options{Name: "frozen", FrozenAfter: 500 * time.Millisecond, OnFrozen: func(f *bubble.Frozen) {
		frozen <- f
		mu.Unlock()
	}}, func() error {
		time.Sleep(time.Second)
		waitOnMutex(&mu)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case f := <-frozen:
		if len(f.Running) != 1 || !strings.Contains(f.Running[0], "waitOnMutex") {
			t.Errorf("Frozen.Running = %q; want the goroutine in waitOnMutex", f.Running)
		}
		if !strings.Contains(f.Error(), "stood still at 00:00:01") {
			t.Errorf("Frozen.Error() = %q; want where the clock stood", f.Error())
		}
		if !strings.Contains(f.Suspects, "waitOnMutex") || strings.Count("\n"+f.Suspects, "\ngoroutine ") != 1 {
			t.Errorf("Frozen.Suspects = %q; want the one stack of the goroutine in waitOnMutex", f.Suspects)
		}
	default:
		t.Fatal("the bubble froze on a mutex held outside and OnFrozen was not called")
	}
}

// A real socket inside a bubble holds its clock: the report says so and
// names what to use instead.
func TestAFrozenClockOnARealSocketSaysWhatToUse(t *testing.T) {
	bubble.UseT(t)
	frozen := make(chan *bubble.Frozen, 1)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	err = bubble.Run(bubble.Options{Name: "socket", FrozenAfter: 500 * time.Millisecond, OnFrozen: func(f *bubble.Frozen) {
		frozen <- f
		lis.Close() // the accept returns, and the clock moves again
	}}, func() error {
		accepted := make(chan struct{})
		go func() {
			defer close(accepted)
			lis.Accept() //nolint:errcheck // only the wait matters
		}()
		time.Sleep(time.Second)
		<-accepted
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case f := <-frozen:
		if !strings.Contains(f.Error(), "IO wait") || !strings.Contains(f.Error(), "ListenService") {
			t.Errorf("Frozen.Error() = %q; want the goroutine in IO wait and what to use instead", f.Error())
		}
	default:
		t.Fatal("the bubble froze on a real socket and OnFrozen was not called")
	}
}

func waitOnMutex(mu *sync.Mutex) {
	mu.Lock()
	mu.Unlock() //nolint:staticcheck // only the wait matters
}

// A program — not a test — opens bubbles under Host, with its own flags
// left alone.
func TestHostGivesAProgramBubbles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	exe := filepath.Join(t.TempDir(), "hosted")
	if out, err := exec.Command("go", "build", "-o", exe, "./testdata/hosted").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(exe, "-flag", "of-the-program").CombinedOutput()
	if err != nil {
		t.Fatalf("the program: %v\n%s", err, out)
	}
	if got, want := strings.TrimSpace(string(out)), "-flag of-the-program: slept 10h0m0s in a bubble"; got != want {
		t.Errorf("the program said %q; want %q", got, want)
	}
	unhosted := filepath.Join(t.TempDir(), "unhosted")
	if out, err := exec.Command("go", "build", "-o", unhosted, "./testdata/unhosted").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if out, _ := exec.Command(unhosted).CombinedOutput(); !strings.HasPrefix(string(out), "true bubble: the virtual clock needs a host") {
		t.Errorf("a program without Host said %q; want ErrNoHost, which says how to get one", out)
	}
	err = exec.Command(exe, "-exit", "7").Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 7 {
		t.Errorf("the program with -exit 7 ended with %v; want exit status 7", err)
	}
}

func TestACarriedContextEndsWithTheOuterOne(t *testing.T) {
	bubble.UseT(t)
	outer, cancel := context.WithCancelCause(context.Background())
	go func() {
		time.Sleep(50 * time.Millisecond) // wall time, outside the bubble
		cancel(errors.New("stopped from outside"))
	}()
	var cause error
	if err := bubble.Run(bubble.Options{}, func() error {
		ctx, stop := bubble.Context(outer)
		defer stop()
		<-ctx.Done()
		cause = context.Cause(ctx)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if cause == nil || cause.Error() != "stopped from outside" {
		t.Errorf("the carried context ended with %v; want the outer one's cause", cause)
	}
}

func TestACarriedDeadlineCountsOnTheBubblesClock(t *testing.T) {
	bubble.UseT(t)
	outer, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var waited time.Duration
	if err := bubble.Run(bubble.Options{}, func() error {
		ctx, stop := bubble.Context(outer)
		defer stop()
		t0 := time.Now()
		<-ctx.Done()
		waited = time.Since(t0)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if waited < 59*time.Second || waited > time.Minute {
		t.Errorf("the carried minute ran out after %v of virtual time", waited)
	}
}

// A goroutine on the CPU holds the clock while it works: that is no freeze.
func TestABusyBubbleIsNotFrozen(t *testing.T) {
	bubble.UseT(t)
	err := bubble.Run(bubble.Options{Name: "busy", FrozenAfter: 300 * time.Millisecond, OnFrozen: func(f *bubble.Frozen) {
		t.Errorf("a bubble at work was reported frozen: %v", f)
	}}, func() error {
		for t0 := bubble.WallNow(); bubble.WallNow().Sub(t0) < time.Second; {
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

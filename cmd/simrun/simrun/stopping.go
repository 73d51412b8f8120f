package simrun

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/etcdsim/etcdsim/internal/bubble"
)

// A run that hangs or spins is stopped from outside: its run timeout
// passes and simrun tells its child to stop, then sends SIGQUIT for its
// stacks. Those stacks show parked goroutines, and a goroutine that spins
// as "running on another thread; stack unavailable"; they do not say how
// far the virtual clock got. So a child told to stop whose run has not
// ended a moment later says how far each of its bubbles got — the virtual
// clock's time, the last event recorded, the goroutines that ran most
// since the clock last moved (bubble.Progress) — on its standard error and
// in the run's stopping.txt, which the timeout's error quotes.

// stoppingAfter is how long a child told to stop gives its run to end
// before it says how far it got: well within childGrace, so that it is
// said before simrun sends SIGQUIT.
const stoppingAfter = time.Second

// sayProgressWhenStopped, once ctx ends and the run has not ended
// stoppingAfter later, writes how far the run in dir got to stderr and to
// its stopping.txt. The returned function, called when the run has ended,
// stops it waiting and waits for it.
func sayProgressWhenStopped(ctx context.Context, dir string, stderr io.Writer) (ended func()) {
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		select {
		case <-done:
			return
		case <-ctx.Done():
		}
		t := time.NewTimer(stoppingAfter)
		defer t.Stop()
		select {
		case <-done:
			return
		case <-t.C:
		}
		var lines []string
		for _, f := range bubble.Progress() {
			lines = append(lines, f.Progress())
		}
		if len(lines) == 0 {
			return // on the real clock: no bubble to say anything of
		}
		text := strings.Join(lines, "\n") + "\n"
		fmt.Fprintf(stderr, "simrun %s: told to stop, the run had not ended after %v: %s", childCommand, stoppingAfter, text)
		os.WriteFile(filepath.Join(dir, stoppingFile), []byte(text), 0o644) //nolint:errcheck // stderr has it too
	}()
	return func() {
		close(done)
		<-exited
	}
}

// stoppingText is how far the run in dir got when its child was told to
// stop, as "; ..." to add to the timeout's error, or "" if it did not say.
func stoppingText(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, stoppingFile))
	if err != nil || len(b) == 0 {
		return ""
	}
	return "; how far it got: " + strings.Join(strings.Split(strings.TrimSpace(string(b)), "\n"), "; ")
}

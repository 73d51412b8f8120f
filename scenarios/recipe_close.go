package scenarios

import (
	"fmt"

	"github.com/etcdsim/etcdsim/checker"
	"io"
	"sync"
	"time"
)

// recipeNotes collects what a run's recipes did wrong that does not stop
// the run: a Close that failed, panicked or did not return, a library's
// dial of an address the harness had not given. The run is judged all
// the same, and Result.RecipeFaults says each in a sentence.
type recipeNotes struct {
	mu       sync.Mutex // guards list and unfenced
	list     []string
	unfenced string         // why the recipe hands out no fencing token (lock.Unfenced, election.Unfenced), "" if it does
	family   string         // the family of the recipe that declared it
	pending  sync.WaitGroup // Close calls that outlived closeLimit
}

// wait gives the Close calls that outlived closeLimit up to limit more to
// return, so that a slow one does not outlive the run.
func (n *recipeNotes) wait(limit time.Duration) {
	done := make(chan struct{})
	go func() {
		n.pending.Wait()
		close(done)
	}()
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

func (n *recipeNotes) add(format string, args ...any) {
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.list = append(n.list, fmt.Sprintf(format, args...))
}

// setUnfenced records that the recipe of family declared it hands out no
// fencing token, and why.
func (n *recipeNotes) setUnfenced(family, why string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.family, n.unfenced = family, why
}

// notApplicable returns the checks that do not apply to the run's recipe
// and, for each, why — the run leaves them out.
func (n *recipeNotes) notApplicable(recipe string) map[checker.Name]string {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.unfenced == "" {
		return nil
	}
	rest := "the family's other checkers judge it"
	if f := familyOf(n.family); f != nil && f.unfenced != "" {
		rest = f.unfenced
	}
	return map[checker.Name]string{checker.CheckerFencing: fmt.Sprintf("%s: not applicable: %s recipe %q hands out no fencing token (%s); %s",
		checker.CheckerFencing, n.family, recipe, n.unfenced, rest)}
}

func (n *recipeNotes) all() []string {
	if n == nil {
		return nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.list...)
}

// closeLimit is how long a recipe's Close may take before the run goes on
// without it.
const closeLimit = 10 * time.Second

// closeRecipe calls the Close method of v — the recipe value of the
// process of client, of the recipe called name of family — if it has one
// (io.Closer), once, as that process ends: crashed, or at the run's end.
// A Close that fails, panics or does not return within closeLimit is
// noted as the recipe's fault; the run goes on, and waits for a late one
// at its end (recipeNotes.wait). One that never returns leaves the run's
// bubble stuck, and the bubble's error names it.
func (w *world) closeRecipe(family, name, client string, v any) {
	c, ok := v.(io.Closer)
	if !ok || isNil(v) {
		return
	}
	done := make(chan error, 1)
	w.notes.pending.Add(1)
	go func() {
		defer w.notes.pending.Done()
		defer func() {
			if p := recover(); p != nil {
				done <- fmt.Errorf("panicked: %v", p)
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
	case err := <-done:
		if err != nil {
			w.notes.add("%s recipe %q: Close of client %s's %T %v; Close must stop what the recipe started for the process and return nil", family, name, client, v, err)
		}
	case <-t.C:
		w.notes.add("%s recipe %q: Close of client %s's %T did not return within %v; Close must stop what the recipe started for the process without waiting on etcd, which a crashed process cannot reach", family, name, client, v, closeLimit)
	}
}

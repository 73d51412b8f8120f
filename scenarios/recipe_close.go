package scenarios

import (
	"fmt"
	"slices"
	"sync"

	"github.com/etcdsim/etcdsim/checker"
)

// recipeNotes collects what a run's recipes did wrong that does not stop
// the run: a Close that failed, panicked or did not return, a library's
// dial of an address the harness had not given. The run is judged all
// the same, and Result.RecipeFaults says each in a sentence.
type recipeNotes struct {
	mu       sync.Mutex // guards list, unfenced, family and made
	list     []string
	unfenced string      // why the recipe hands out no fencing token (lock.Unfenced, election.Unfenced), "" if it does
	family   string      // the family of the recipe that declared it
	made     []madeValue // the kinds of recipe values the run made
}

func (n *recipeNotes) add(format string, args ...any) {
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.list = append(n.list, fmt.Sprintf(format, args...))
}

// addOnce adds msg unless it is noted already: a client's every program
// may do the same thing wrong.
func (n *recipeNotes) addOnce(msg string) {
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if !slices.Contains(n.list, msg) {
		n.list = append(n.list, msg)
	}
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

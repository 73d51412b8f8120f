package scenarios

import (
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/etcdsim/etcdsim/checker"
)

// recipeNotes collects what a run's recipes did wrong that does not stop
// the run: a Close that failed, panicked or did not return, a library's
// dial of an address the harness had not given. The run is judged all
// the same, and Result.RecipeFaults says each in a sentence.
type recipeNotes struct {
	mu       sync.Mutex // guards list, unfenced, family, declared, unread and made
	list     []string
	unfenced string            // why the recipe hands out no fencing token (lock.Unfenced, election.Unfenced), "" if it does
	family   string            // the family of the recipe that declared it
	declared map[string]string // each client's declaration, as its first program to answer made it (fencing_declared.go)
	unread   unreadNotes       // the discovery records a decoder could not read (discovery_decode.go)
	made     []madeValue       // the kinds of recipe values the run made
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

// notApplicable returns the checks that do not apply to the run's recipe
// and, for each, why — the run leaves them out. Clients that declared
// differently are said in a sentence beside it.
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
	var fenced []string
	for _, c := range slices.Sorted(maps.Keys(n.declared)) {
		if n.declared[c] == "" {
			fenced = append(fenced, c)
		}
	}
	also := ""
	if len(fenced) > 0 {
		also = fmt.Sprintf("; clients %v declared they hand out tokens, the others not", fenced)
	}
	return map[checker.Name]string{checker.CheckerFencing: fmt.Sprintf("%s: not applicable: %s recipe %q hands out no fencing token (%s)%s; %s",
		checker.CheckerFencing, n.family, recipe, n.unfenced, also, rest)}
}

func (n *recipeNotes) all() []string {
	if n == nil {
		return nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.list...)
}

package scenarios

import (
	"fmt"
	"slices"

	"github.com/etcdsim/etcdsim/election"
	"github.com/etcdsim/etcdsim/lock"
)

// A recipe may declare that it hands out no fencing token (lock.Unfenced,
// election.Unfenced); fencing is then not applicable to the run. The
// declaration belongs to the client that made it, for the whole run: a
// client's process is made anew after each crash, and a program
// (package program) restarted late in a run may never answer its init
// before the run ends — it declared nothing then, and the client keeps
// what its first program declared. A later program that answers with a
// different declaration is said in a sentence; the first one stands.

var (
	_ unfenced = lock.Unfenced(nil)
	_ unfenced = election.Unfenced(nil)
)

// unfenced is lock.Unfenced and election.Unfenced.
type unfenced interface{ Unfenced() string }

// answerer is a recipe value that may not have answered for itself: a
// program whose init was never answered (program's Answered) declared
// nothing.
type answerer interface{ Answered() bool }

// declare records the declaration of the recipe value v that client's
// process of family just made, if v makes one.
func (n *recipeNotes) declare(family, client string, v any) {
	u, ok := v.(unfenced)
	if !ok || n == nil {
		return
	}
	if a, ok := v.(answerer); ok && !a.Answered() {
		return
	}
	why := u.Unfenced()
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.declared == nil {
		n.declared = make(map[string]string)
	}
	first, seen := n.declared[client]
	switch {
	case !seen:
		n.declared[client] = why
		if why != "" && n.unfenced == "" {
			n.family, n.unfenced = family, why
		}
	case why != first:
		msg := fmt.Sprintf("%s %s: a restarted process's recipe declares %s where the client's first declared %s; "+
			"the first declaration stands for the run", family, client, fencingWords(why), fencingWords(first))
		if !slices.Contains(n.list, msg) {
			n.list = append(n.list, msg)
		}
	}
}

// fencingWords is a declaration as a sentence reads it.
func fencingWords(why string) string {
	if why == "" {
		return "that it hands out fencing tokens"
	}
	return fmt.Sprintf("no fencing token (%q)", why)
}

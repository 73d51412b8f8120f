package election

import (
	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/internal/recipe"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// NewElector builds a candidate that uses cli in the election under
// prefix: the constructor every election recipe provides.
type NewElector func(cli *clientv3.Client, prefix string, opts Options) (Elector, error)

// Recipe is an election recipe that scenarios can run by name: its name,
// a one-line summary, whether it is deliberately broken and, if so, the
// violation it must produce and the upstream report it reproduces. It is
// the registry type every recipe family shares.
// Its fields, documented on the internal type it names: Name (lower-case
// letters, digits and '-'), Summary (one line), New (the constructor);
// Broken, Expect (the checker and violation it must produce) and Upstream
// (the report's URL) for a deliberately broken one; Family may stay empty.
// A user's own:
//
//	election.Recipe{Name: "my-election", Summary: "what it does", New: newMyElector}
type Recipe = recipe.Recipe[NewElector]

var twoLeaders = checker.Expectation{Checker: checker.CheckerElectionSafety, Violation: checker.ViolationTwoLeaders}

// registry lists the correct recipes first.
var registry = recipe.NewRegistry(recipe.Election,
	Recipe{Name: "rechecked", New: NewRechecked,
		Summary: "concurrency.Election; the wait ends with the lease and a linearizable read checks the key after it"},
	Recipe{Name: "keywatched", New: NewKeyWatched,
		Summary: "rechecked whose leader also watches its own key: a key deleted from outside the recipe ends the term"},
	Recipe{Name: "server", New: NewServer,
		Summary: "etcd's election service (v3election), with the same lease guard and recheck"},
	Recipe{Name: "modrevision", Broken: true, New: newModRevision, Expect: twoLeaders,
		Summary: "ordered by mod revision: the leader's Proclaim lets a follower lead too"},
	Recipe{Name: "ignoresdone", Broken: true, New: newIgnoresDone, Expect: twoLeaders,
		Summary: "Leadership.Done closes only on Resign: a leader paused past its TTL keeps acting"},
	Recipe{Name: "unchecked", Broken: true, New: newUnchecked, Expect: twoLeaders,
		Upstream: "https://github.com/etcd-io/etcd/issues/19597",
		Summary:  "upstream Campaign without a recheck: reports leadership after its lease expired while waiting"},
	Recipe{Name: "missed-wakeup", Broken: true, New: newMissedWakeup,
		Expect:  checker.Expectation{Checker: checker.CheckerLiveness, Violation: checker.ViolationLeaderless},
		Summary: "a candidate reads the key ahead of it, then watches it from \"now\": a resignation in between is never seen"},
).WithUpstream(upstreamRecipes...)

// Recipes returns every recipe of this package, correct ones first. The
// slice is the caller's to keep.
func Recipes() []Recipe { return registry.All() }

// Lookup returns the recipe called name, of the gallery or of
// UpstreamRecipes, or an error wrapping ErrUnknownRecipe that lists the
// names there are, the closest first.
func Lookup(name string) (Recipe, error) {
	r, err := registry.Lookup(name)
	if err != nil {
		return Recipe{}, recipe.Unknown("election: ", ErrUnknownRecipe, err)
	}
	return r, nil
}

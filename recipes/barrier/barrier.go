package barrier

import (
	"context"
	"errors"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/internal/recipe"
	"github.com/etcdsim/etcdsim/lock"
)

// Sentinel errors. The errors the package returns wrap them with the
// barrier or value involved, so test them with errors.Is.
var (
	// ErrBadName is returned for a barrier asked for with an empty name.
	ErrBadName = errors.New("barrier: empty barrier name")
	// ErrBadCount is returned for a count below 1.
	ErrBadCount = errors.New("barrier: bad count")
	// ErrBadTTL is returned for a TTL etcd cannot grant as asked; it wraps
	// lease.ErrBadTTL as well.
	ErrBadTTL = errors.New("barrier: bad TTL")
	// ErrFull is returned by Enter when the barrier already holds its
	// count: the caller did not enter, and left no key behind.
	ErrFull = errors.New("barrier: full")
	// ErrLeaseLost is returned by Enter when the process's session lease
	// expired, or could not be renewed, while it waited: its waiter key
	// is gone or about to go, and the others no longer count it. The
	// process did not enter; a new Enter starts a new session.
	ErrLeaseLost = errors.New("barrier: session lease lost while waiting")
	// ErrUnknownRecipe is returned by Lookup for a name not registered.
	ErrUnknownRecipe = errors.New("barrier: no recipe named")
)

// DoubleBarrier is one process's side of a named double barrier. Every
// call takes a context and returns once it ends. Enter and Leave
// alternate; a failed Enter leaves nothing behind, so the caller may try
// it again.
//
// It may also have a method Close() error, which the scenarios call once
// when the simulated process it stands for crashes and at the end of the
// run, to stop what the recipe started for it; what Close does wrong, and
// goroutines the recipe leaves behind, are the recipe's fault, by the
// rules lock.Locker's documentation gives.
type DoubleBarrier interface {
	Enter(ctx context.Context) error
	Leave(ctx context.Context) error
}

// NewDoubleBarrier makes one process's side of the double barrier called
// name, for count processes: the constructor every recipe provides. Of
// opts only TTL is read: the life of the process's session lease, 0
// meaning lock.DefaultTTL.
type NewDoubleBarrier func(cli *clientv3.Client, name string, count int, opts lock.Options) (DoubleBarrier, error)

// Recipe is a double-barrier implementation scenarios can run by name, of
// the registry type every family shares (see lock.Recipe). A user's own:
//
//	barrier.Recipe{Name: "my-barrier", Summary: "what it does", New: newMine}
type Recipe = recipe.Recipe[NewDoubleBarrier]

var registry = recipe.NewRegistry(recipe.Barrier,
	Recipe{Name: "checked", New: NewChecked,
		Summary: "experimental/recipes.DoubleBarrier on a session per process; a wait that ends without the barrier " +
			"ready is an error, and a failed Enter gives up its session so that no key of it is counted twice"},
	Recipe{Name: "short-count", Broken: true, New: newShortCount,
		Expect: checker.Expectation{Checker: checker.CheckerBarrierSafety, Violation: checker.ViolationEarlyPass},
		Summary: "checked, but each process counts the others, not the group: the second to last to arrive " +
			"declares the barrier ready and everyone walks in before the last has come"},
).WithUpstream(
	Recipe{Name: "upstream", Broken: true, New: newUpstreamDoubleBarrier,
		Expect:  checker.Expectation{Checker: checker.CheckerBarrierSafety, Violation: checker.ViolationEarlyPass},
		Summary: "experimental/recipes.DoubleBarrier unmodified: Enter returns nil when its watch closes for any reason, a compacted revision too"},
)

// Recipes returns the gallery: the correct recipes first, then the
// deliberately broken ones.
func Recipes() []Recipe { return registry.All() }

// UpstreamRecipes returns the double-barrier recipes that run etcd's code
// as it is, for the upstream scenarios; Lookup finds them by name
// ("upstream") too.
func UpstreamRecipes() []Recipe { return registry.Upstream() }

// Lookup returns the recipe called name, or an error wrapping
// ErrUnknownRecipe that lists the names there are, the closest first.
func Lookup(name string) (Recipe, error) {
	r, err := registry.Lookup(name)
	if err != nil {
		return Recipe{}, recipe.Unknown("barrier: ", ErrUnknownRecipe, err)
	}
	return r, nil
}

// DefaultPrefix is where barrier keys live.
const DefaultPrefix = "etcdsim/barrier/"

// check refuses what no recipe can be built with.
func check(cli *clientv3.Client, name string, count int) error {
	switch {
	case cli == nil:
		return fmt.Errorf("barrier: %q: nil client", name)
	case name == "":
		return fmt.Errorf("%w: want a name such as \"phase\"", ErrBadName)
	case count < 1:
		return fmt.Errorf("%w: barrier %q: count %d; want 1 or more processes", ErrBadCount, name, count)
	}
	return nil
}

package barrier

import (
	"context"
	"errors"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/internal/recipe"
)

// ErrHeld is returned by Hold when the barrier is held already: the key
// was there, and Hold changed nothing. It wraps etcd's
// recipes.ErrKeyExists where the recipe returns that.
var ErrHeld = errors.New("barrier: already held")

// Barrier is one process's side of a named plain barrier, etcd's Barrier:
// a holder puts it up with Hold and takes it down with Release, and Wait
// returns once it is down — at once if it is down already. Any process
// may call any method; every call takes a context and returns once it
// ends.
//
// It may also have a method Close() error, which the scenarios call once
// when the simulated process it stands for crashes and at the end of the
// run, to stop what the recipe started for it; what Close does wrong, and
// goroutines the recipe leaves behind, are the recipe's fault, by the
// rules lock.Locker's documentation gives.
type Barrier interface {
	Hold(ctx context.Context) error
	Release(ctx context.Context) error
	Wait(ctx context.Context) error
}

// NewBarrier makes one process's side of the plain barrier called name:
// the constructor every plain-barrier recipe provides.
type NewBarrier func(cli *clientv3.Client, name string) (Barrier, error)

// PlainRecipe is a plain-barrier implementation scenarios can run by
// name, of the registry type every family shares. A user's own:
//
//	barrier.PlainRecipe{Name: "my-barrier", Summary: "what it does", New: newMine}
type PlainRecipe = recipe.Recipe[NewBarrier]

var plainRegistry = recipe.NewRegistry(recipe.PlainBarrier,
	PlainRecipe{Name: "checked", New: NewCheckedBarrier,
		Summary: "experimental/recipes.Barrier whose Wait, once it returns, reads the key: still held by the same " +
			"Hold, the watch closed early (a compacted revision) and the wait goes on"},
	PlainRecipe{Name: "unpinned-watch", Broken: true, New: newUnpinnedWatch,
		Expect: checker.Expectation{Checker: checker.CheckerBarrierSafety, Violation: checker.ViolationStuckWait},
		Summary: "Wait reads the key, then watches it from now rather than from the read's revision: a Release " +
			"between the two is missed, and the waiter sleeps until some later release"},
).WithUpstream(
	PlainRecipe{Name: "upstream", Broken: true, New: newUpstreamBarrier,
		Expect:  checker.Expectation{Checker: checker.CheckerBarrierSafety, Violation: checker.ViolationEarlyPass},
		Summary: "experimental/recipes.Barrier unmodified: Wait returns nil when its watch closes for any reason, a compacted revision too"},
)

// PlainRecipes returns the plain-barrier gallery: the correct recipes
// first, then the deliberately broken ones. etcd's own recipe, run as it
// is, is looked up by name ("upstream") and listed by UpstreamPlainRecipes.
func PlainRecipes() []PlainRecipe { return plainRegistry.All() }

// UpstreamPlainRecipes returns the plain-barrier recipes that run etcd's
// code as it is, for the upstream scenarios.
func UpstreamPlainRecipes() []PlainRecipe { return plainRegistry.Upstream() }

// LookupPlain returns the plain-barrier recipe called name, or an error
// wrapping ErrUnknownRecipe that lists the names there are, the closest
// first.
func LookupPlain(name string) (PlainRecipe, error) {
	r, err := plainRegistry.Lookup(name)
	if err != nil {
		return PlainRecipe{}, recipe.Unknown("barrier: ", ErrUnknownRecipe, err)
	}
	return r, nil
}

// checkPlain refuses what no plain barrier can be built with.
func checkPlain(cli *clientv3.Client, name string) error {
	switch {
	case cli == nil:
		return fmt.Errorf("barrier: %q: nil client; want a connected *clientv3.Client", name)
	case name == "":
		return fmt.Errorf("%w: want a name such as \"deploy\"", ErrBadName)
	}
	return nil
}

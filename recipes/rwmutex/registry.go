package rwmutex

import (
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/internal/recipe"
	"github.com/etcdsim/etcdsim/lock"
)

// NewLocker makes the Locker of one process for the read-write lock called
// name: the constructor every recipe provides.
type NewLocker func(cli *clientv3.Client, name string, opts lock.Options) (Locker, error)

// Recipe is a read-write lock implementation scenarios can run by name,
// of the registry type every family shares (see lock.Recipe). A user's own:
//
//	rwmutex.Recipe{Name: "my-rwlock", Summary: "what it does", New: newMine}
type Recipe = recipe.Recipe[NewLocker]

var registry = recipe.NewRegistry(recipe.RWMutex,
	Recipe{Name: "checked", New: newChecked,
		Summary: "experimental/recipes.RWMutex on a session per process, each wait followed by a read that " +
			"proves the caller's key outlived it; a new session once the old one is lost"},
	Recipe{Name: "reader-ignores-done", Broken: true, New: newIgnoreDone,
		Expect: checker.Expectation{Checker: checker.CheckerRWExclusion, Violation: checker.ViolationOverlap},
		Summary: "checked, but readers never watch their session's Done: a reader cut off past its TTL reads on " +
			"while a writer holds the lock"},
).WithUpstream(
	// The recipes that run etcd's own client library unchanged in the
	// calling pattern of a report against etcd. Lookup finds them;
	// Recipes, the gallery, does not list them. The fix of etcd #16221 is
	// checked, in the gallery.
	Recipe{Name: "unchecked", Broken: true, New: newUnchecked,
		Expect:   checker.Expectation{Checker: checker.CheckerRWExclusion, Violation: checker.ViolationOverlap},
		Upstream: "https://github.com/etcd-io/etcd/issues/16221",
		Summary: "experimental/recipes.RWMutex as etcd #16221 uses it: Lock's nil is trusted, so a session " +
			"revoked while Lock waits yields a writer without a key, and the next writer walks in"},
)

// Recipes returns the gallery: the correct recipes first, then the
// deliberately broken ones.
func Recipes() []Recipe { return registry.All() }

// UpstreamRecipes returns the recipes that reproduce reports against etcd;
// Lookup finds them, Recipes does not list them.
func UpstreamRecipes() []Recipe { return registry.Upstream() }

// Lookup returns the recipe called name, of the gallery or of
// UpstreamRecipes, or an error wrapping ErrUnknownRecipe that lists the
// names there are, the closest first.
func Lookup(name string) (Recipe, error) {
	r, err := registry.Lookup(name)
	if err != nil {
		return Recipe{}, recipe.Unknown("rwmutex: ", ErrUnknownRecipe, err)
	}
	return r, nil
}

var _ lock.Held = (*held)(nil)

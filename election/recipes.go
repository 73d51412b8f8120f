package election

import (
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Recipe is an election recipe that scenarios can run by name.
type Recipe struct {
	// Name is how scenarios and simrun refer to the recipe.
	Name string `json:"name"`
	// Broken marks a deliberately broken recipe: scenarios expect its
	// violation instead of failing on it.
	Broken bool `json:"broken,omitempty"`
	// Pitfall is the recipe's number in issue 4's pitfall gallery; 0 for a
	// correct recipe.
	Pitfall int `json:"pitfall,omitempty"`
	// Summary says in one line what the recipe does, and for a broken one
	// what breaks.
	Summary string `json:"summary"`
	// New builds a candidate that uses cli in the election under prefix.
	New func(cli *clientv3.Client, prefix string, opts Options) (Elector, error) `json:"-"`
}

// Recipes returns every recipe of this package, correct ones first. The
// slice is the caller's to keep.
func Recipes() []Recipe {
	return []Recipe{
		{Name: "rechecked", New: NewRechecked,
			Summary: "concurrency.Election; the wait ends with the lease and a linearizable read checks the key after it"},
		{Name: "server", New: NewServer,
			Summary: "etcd's election service (v3election), with the same lease guard and recheck"},
		{Name: "modrevision", Broken: true, Pitfall: 2, New: NewModRevision,
			Summary: "ordered by mod revision: the leader's Proclaim lets a follower lead too"},
		{Name: "ignoresdone", Broken: true, Pitfall: 10, New: NewIgnoresDone,
			Summary: "Leadership.Done closes only on Resign: a leader paused past its TTL keeps acting"},
		{Name: "unchecked", Broken: true, Pitfall: 11, New: NewUnchecked,
			Summary: "upstream Campaign without a recheck (etcd #19597): reports leadership after its lease expired while waiting"},
	}
}

// Lookup returns the recipe called name, or an error wrapping
// ErrUnknownRecipe that lists the names there are.
func Lookup(name string) (Recipe, error) {
	var names []string
	for _, r := range Recipes() {
		if r.Name == name {
			return r, nil
		}
		names = append(names, r.Name)
	}
	return Recipe{}, fmt.Errorf("%w %q; have %q", ErrUnknownRecipe, name, names)
}

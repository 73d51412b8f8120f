package election

import (
	"slices"
	"testing"
)

// Lookup finds every upstream recipe; Recipes, the gallery, lists none.
func TestUpstreamRegistry(t *testing.T) {
	up := UpstreamRecipes()
	if len(up) == 0 {
		t.Fatal("no upstream recipes")
	}
	for _, r := range up {
		if got, err := Lookup(r.Name); err != nil || got.Name != r.Name {
			t.Errorf("Lookup(%q) = %q, %v", r.Name, got.Name, err)
		}
		if slices.ContainsFunc(Recipes(), func(g Recipe) bool { return g.Name == r.Name }) {
			t.Errorf("Recipes lists upstream recipe %s", r.Name)
		}
	}
}

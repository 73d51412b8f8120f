package election

import (
	"testing"

	"github.com/etcdsim/etcdsim/internal/recipe"
)

// The upstream recipes are valid, found by Lookup, apart from the gallery,
// and each broken one lives in an upstream_*.go file whose comment begins
// "BROKEN (deliberately):" and names its report.
func TestUpstreamRegistry(t *testing.T) {
	if err := recipe.CheckUpstream(".", Recipes(), UpstreamRecipes(), Lookup); err != nil {
		t.Error(err)
	}
}

package election

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// The upstream recipes are valid, found by Lookup, apart from the gallery,
// and each broken one lives in an upstream_*.go file whose comment begins
// "BROKEN (deliberately):" and names its report.
func TestUpstreamRegistry(t *testing.T) {
	gallery := map[string]bool{}
	for _, r := range Recipes() {
		gallery[r.Name] = true
	}
	var marked []string
	files, err := filepath.Glob("upstream_*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, cg := range f.Comments {
			if text := cg.Text(); strings.HasPrefix(text, "BROKEN (deliberately):") {
				marked = append(marked, text)
			}
		}
	}
	broken := 0
	for _, r := range UpstreamRecipes() {
		if err := r.Validate(); err != nil {
			t.Errorf("%v", err)
		}
		if gallery[r.Name] {
			t.Errorf("upstream recipe %s has the name of a gallery recipe", r.Name)
		}
		if got, err := Lookup(r.Name); err != nil || got.Name != r.Name {
			t.Errorf("Lookup(%q) = %q, %v", r.Name, got.Name, err)
		}
		if !r.Broken {
			continue
		}
		broken++
		num := r.Upstream[strings.LastIndexByte(r.Upstream, '/')+1:]
		found := false
		for _, text := range marked {
			found = found || strings.Contains(text, "etcd #"+num)
		}
		if !found {
			t.Errorf("broken recipe %s (%s): no upstream_*.go comment begins \"BROKEN (deliberately):\" and names etcd #%s", r.Name, r.Upstream, num)
		}
	}
	if broken != len(marked) {
		t.Errorf("%d broken upstream recipes registered but %d comments marked BROKEN", broken, len(marked))
	}
}

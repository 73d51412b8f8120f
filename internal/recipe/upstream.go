package recipe

import (
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
)

// CheckUpstream reports every way a family's upstream recipes — those run
// apart from its gallery to reproduce reports against etcd — fall short:
// an invalid recipe, one named as a gallery recipe, one lookup does not
// find, or a broken one whose report no upstream_*.go file in dir names in
// a comment beginning "BROKEN (deliberately):". A family's test is one line
// on top of it.
func CheckUpstream[New any](dir string, gallery, upstream []Recipe[New], lookup func(string) (Recipe[New], error)) error {
	var errs []error
	names := map[string]bool{}
	for _, r := range gallery {
		names[r.Name] = true
	}
	files, err := filepath.Glob(filepath.Join(dir, "upstream_*.go"))
	if err != nil {
		return err
	}
	var marked []string
	for _, name := range files {
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		for _, cg := range f.Comments {
			if text := cg.Text(); strings.HasPrefix(text, "BROKEN (deliberately):") {
				marked = append(marked, text)
			}
		}
	}
	broken := 0
	for _, r := range upstream {
		if err := r.Validate(); err != nil {
			errs = append(errs, err)
		}
		if names[r.Name] {
			errs = append(errs, fmt.Errorf("upstream recipe %s has the name of a gallery recipe", r.Name))
		}
		if got, err := lookup(r.Name); err != nil || got.Name != r.Name {
			errs = append(errs, fmt.Errorf("lookup(%q) = %q, %v", r.Name, got.Name, err))
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
			errs = append(errs, fmt.Errorf("broken recipe %s (%s): no upstream_*.go comment begins \"BROKEN (deliberately):\" and names etcd #%s", r.Name, r.Upstream, num))
		}
	}
	if broken != len(marked) {
		errs = append(errs, fmt.Errorf("%d broken upstream recipes registered but %d comments marked BROKEN", broken, len(marked)))
	}
	return errors.Join(errs...)
}

package recipe_test

import (
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/election"
	"github.com/etcdsim/etcdsim/internal/recipe"
	"github.com/etcdsim/etcdsim/lock"
)

// marker begins the comment of every deliberately broken recipe.
const marker = "BROKEN (deliberately):"

// Each family's broken upstream recipe is built in an upstream_*.go file
// of the family whose comment begins with the marker and names the report
// (etcd #N), and every such comment belongs to a registered recipe. The
// check reads source files, so it lives in a test: the registry itself
// never does.
func TestUpstreamRecipesMarked(t *testing.T) {
	if err := errors.Join(
		upstreamMarked(filepath.Join("..", "..", "lock"), lock.UpstreamRecipes()),
		upstreamMarked(filepath.Join("..", "..", "election"), election.UpstreamRecipes()),
	); err != nil {
		t.Error(err)
	}
}

// The check finds a broken upstream recipe no marked comment names, and
// passes once a file names its report.
func TestUpstreamMarkedFindsAnUnmarkedRecipe(t *testing.T) {
	dir := t.TempDir()
	up := []recipe.Recipe[func()]{{Name: "retry", Summary: "s", New: func() {}, Broken: true,
		Upstream: "https://github.com/etcd-io/etcd/issues/22082",
		Expect:   checker.Expectation{Checker: checker.CheckerMutualExclusion, Violation: checker.ViolationOverlap}}}
	err := upstreamMarked(dir, up)
	if err == nil || !strings.Contains(err.Error(), "names etcd #22082") {
		t.Errorf("upstreamMarked: %v; want an error saying no comment names etcd #22082", err)
	}
	src := "package x\n\n// BROKEN (deliberately): etcd #22082.\nfunc f() {}\n"
	if err := os.WriteFile(filepath.Join(dir, "upstream_retry.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := upstreamMarked(dir, up); err != nil {
		t.Errorf("upstreamMarked with the report named: %v", err)
	}
}

// upstreamMarked reports every broken recipe of upstream that no
// upstream_*.go file of dir marks, and a marked comment too many.
func upstreamMarked[New any](dir string, upstream []recipe.Recipe[New]) error {
	files, err := filepath.Glob(filepath.Join(dir, "upstream_*.go"))
	if err != nil {
		return err
	}
	var errs []error
	var marked []string
	for _, name := range files {
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		for _, cg := range f.Comments {
			if text := cg.Text(); strings.HasPrefix(text, marker) {
				marked = append(marked, text)
			}
		}
	}
	broken := 0
	for _, r := range upstream {
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
			errs = append(errs, fmt.Errorf("%s: broken recipe %s (%s): no upstream_*.go comment begins %q and names etcd #%s", dir, r.Name, r.Upstream, marker, num))
		}
	}
	if broken != len(marked) {
		errs = append(errs, fmt.Errorf("%s: %d broken upstream recipes registered but %d comments marked BROKEN", dir, broken, len(marked)))
	}
	return errors.Join(errs...)
}

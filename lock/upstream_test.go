package lock

import (
	"errors"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
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

// etcd #22082 on one process: its release's answers are lost, so Unlock
// fails although the delete committed; it locks again on its session and
// the old release is retried. Upstream's Unlock deletes the new lock; the
// fenced release leaves it.
func TestUnlockRetry(t *testing.T) {
	c := cluster.New(t, cluster.Config{})
	observer := clustertest.Client(t, c, "observer")
	for _, tt := range []struct {
		recipe string
		kept   bool // the new lock survives the retried release
	}{
		{recipe: "unlock-retry", kept: false},
		{recipe: "unlock-retry-fenced", kept: true},
	} {
		t.Run(tt.recipe, func(t *testing.T) {
			ctx := clustertest.Context(t)
			name := "retry-" + tt.recipe
			cli := clustertest.Client(t, c, name)
			l := newLocker(t, tt.recipe, cli, name, Options{TTL: 2 * time.Second})
			h := mustLock(t, ctx, l)

			// The answers are lost until the delete has committed; then
			// the links heal, which resets the connection under Unlock.
			setAnswers := func(cond cluster.Condition) {
				for _, m := range c.Members() {
					if err := c.SetLink(m.Name(), name, cond); err != nil {
						t.Fatal(err)
					}
				}
			}
			setAnswers(cluster.Blackholed())
			gone := keyDeleted(ctx, observer, h.Key())
			errc := make(chan error, 1)
			go func() { errc <- h.Unlock(ctx) }()
			select {
			case <-gone:
			case <-ctx.Done():
				t.Fatal("Unlock's delete never committed")
			}
			setAnswers(cluster.Healthy)
			if err := <-errc; err == nil || errors.Is(err, ErrNotHeld) {
				t.Fatalf("Unlock with its answers lost: %v, want an error of transport", err)
			}

			h2 := mustLock(t, ctx, l) // retries the failed release
			if h2.Key() != h.Key() || h2.Token() <= h.Token() {
				t.Fatalf("second lock: key %s token %d, want key %s with a token above %d", h2.Key(), h2.Token(), h.Key(), h.Token())
			}
			kept, err := h2.(Checker).Owned(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if kept != tt.kept {
				t.Errorf("after the retried release, the new lock is kept: %v, want %v", kept, tt.kept)
			}
			if tt.kept {
				unlock(t, ctx, h2, nil)
			} else {
				h2.Unlock(ctx) // upstream's Unlock deletes nothing now, and says nothing
			}
		})
	}
}

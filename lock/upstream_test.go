package lock

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	clientv3 "go.etcd.io/etcd/client/v3"
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

// etcd #22082 on one process: its release's answers are lost, so Unlock
// fails although the delete committed; it locks again on its session and
// the old release is retried. Upstream's Unlock deletes the new lock; the
// fenced release leaves it.
// It stays on the real clock: it needs the heal to reset a connection
// while Unlock's answer is in flight, and on the virtual clock the heal
// and the answer can fall in one instant, so that Unlock now and then
// sees its answer (2 runs in 60 under -race).
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
			// Now and then Unlock sees its answer despite the cut (on
			// either clock): the attempt did not lose the answer and tests
			// nothing, so it is tried again, up to three times.
			for attempt := range 3 {
				if unlockRetryAttempt(t, c, observer, tt.recipe, tt.kept, attempt) {
					return
				}
				t.Logf("attempt %d: Unlock saw its answer; trying again", attempt)
			}
			t.Fatal("in three attempts Unlock always saw its answer: the cut did not lose it")
		})
	}
}

// unlockRetryAttempt runs TestUnlockRetry once with a client of its own
// and reports whether Unlock's answer was lost, as the test needs.
func unlockRetryAttempt(t *testing.T, c *cluster.Cluster, observer *clientv3.Client, recipe string, want bool, attempt int) bool {
	t.Helper()
	ctx := clustertest.Context(t)
	name := fmt.Sprintf("retry-%s-%d", recipe, attempt)
	cli := clustertest.Client(t, c, name)
	l := newLocker(t, recipe, cli, name, Options{TTL: 2 * time.Second})
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
	err := <-errc
	if err == nil {
		return false
	}
	if errors.Is(err, ErrNotHeld) {
		t.Fatalf("Unlock with its answers lost: %v, want an error of transport", err)
	}

	// The heal reset the client's connection: wait until a request
	// goes through again, or the next Lock may meet the old one's end.
	for {
		if _, err := cli.Get(ctx, "probe"); err == nil {
			break
		} else if ctx.Err() != nil {
			t.Fatalf("the client never reconnected after the heal: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	h2 := mustLock(t, ctx, l) // retries the failed release
	if h2.Key() != h.Key() || h2.Token() <= h.Token() {
		t.Fatalf("second lock: key %s token %d, want key %s with a token above %d", h2.Key(), h2.Token(), h.Key(), h.Token())
	}
	kept, err := h2.(Checker).Owned(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if kept != want {
		t.Errorf("after the retried release, the new lock is kept: %v, want %v", kept, want)
	}
	if want {
		unlock(t, ctx, h2, nil)
	} else {
		h2.Unlock(ctx) // upstream's Unlock deletes nothing now, and says nothing
	}
	return true
}

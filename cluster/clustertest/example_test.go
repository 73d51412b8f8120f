package clustertest_test

import (
	"context"
	"testing"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
)

// A test isolates a worker and checks, through the harness's own observer,
// that what the worker wrote before the cut is still there. (Compiled, not
// run: in a real test t is the *testing.T the test is given.)
func Example() {
	var t *testing.T
	c := cluster.New(t, cluster.Config{})
	ctx := clustertest.Context(t)
	worker := clustertest.Client(t, c, "worker")
	if _, err := worker.Put(ctx, "/jobs/1", "queued"); err != nil {
		t.Fatal(err)
	}
	if err := c.Isolate("worker"); err != nil {
		t.Fatal(err)
	}
	obs := clustertest.Observer(t, c.Members()...)
	clustertest.Eventually(t, ctx, "the observer reads the job", func(ctx context.Context) error {
		_, err := obs.Get(ctx, "/jobs/1")
		return err
	})
}

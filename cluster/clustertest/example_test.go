package clustertest_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
)

// testWorkerIsolation is a test as it would be written in a _test.go file:
// a worker writes a job, is isolated, and the harness's own observer still
// reads what it wrote before the cut.
func testWorkerIsolation(t testing.TB) {
	c := cluster.New(t, cluster.Config{})
	ctx := clustertest.Context(t)
	worker := clustertest.Client(t, c, "worker")
	if _, err := worker.Put(ctx, "/jobs/1", "queued"); err != nil {
		t.Fatal(err)
	}
	if err := c.Isolate("worker"); err != nil {
		t.Fatal(err)
	}
	pctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err := worker.Put(pctx, "/jobs/2", "queued")
	cancel()
	fmt.Println("isolated worker can write:", err == nil)

	obs := clustertest.Observer(t, c.Members()...)
	clustertest.Eventually(t, ctx, "the observer reads the job", func(ctx context.Context) error {
		resp, err := obs.Get(ctx, "/jobs/1")
		if err == nil {
			fmt.Printf("observer reads /jobs/1 = %s\n", resp.Kvs[0].Value)
		}
		return err
	})
}

// A test isolates a worker and checks, through the harness's own observer,
// that what the worker wrote before the cut is still there. An example gets
// no *testing.T, so this one runs the test with a stand-in that does what
// go test would: run the cleanups, report a failure. Without a *testing.T
// it cannot enter a synctest bubble either: its cluster runs on the real
// clock, and clustertest.Context stretches its deadline with the machine's
// load (patience.Scale).
func Example() {
	t := &exampleT{}
	defer t.finish()
	testWorkerIsolation(t)
	// Output:
	// isolated worker can write: false
	// observer reads /jobs/1 = queued
}

// exampleT is the little of testing.TB that the helpers use.
type exampleT struct {
	testing.TB
	cleanups []func()
}

func (t *exampleT) Helper()                        {}
func (t *exampleT) Cleanup(f func())               { t.cleanups = append(t.cleanups, f) }
func (t *exampleT) Errorf(format string, a ...any) { fmt.Printf("FAIL: "+format+"\n", a...) }
func (t *exampleT) Fatal(a ...any)                 { t.Fatalf("%s", fmt.Sprint(a...)) }
func (t *exampleT) Fatalf(format string, a ...any) {
	t.Errorf(format, a...)
	panic("test failed")
}

// finish runs the cleanups, newest first, as go test does when a test ends.
func (t *exampleT) finish() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
}

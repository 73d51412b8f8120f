package faults_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/internal/patience"
)

// start starts a cluster of n members with the named clients, and an Env
// on it. On failure the test logs the Env's events. Inside a bubble
// (clustertest.Virtual) the cluster runs on the virtual clock; outside
// one, on the real clock, which TestInjectErrors needs because its
// subtests share one cluster and a bubble cannot hold t.Run. The Env's
// timeout stretches with the machine's load (patience.Scale); on the
// virtual clock that costs no wall time.
func start(t *testing.T, n int, clients ...string) (*cluster.Cluster, *faults.Env) {
	t.Helper()
	c := cluster.New(t, cluster.Config{Members: n})
	for _, name := range clients {
		if _, err := c.Client(name); err != nil {
			t.Fatal(err)
		}
	}
	env := faults.NewEnv(c, faults.Config{Timeout: patience.Scale(30 * time.Second)})
	t.Cleanup(func() {
		if t.Failed() {
			for _, ev := range env.Log().Events() {
				t.Logf("event: %s", describe(ev))
			}
		}
	})
	return c, env
}

func describe(ev checker.FaultEvent) string {
	s := fmt.Sprintf("%s on %v [%v, %v] healed=%v", ev.Name, ev.Targets, ev.Start, ev.End, ev.Healed)
	if ev.Detail != "" {
		s += " (" + ev.Detail + ")"
	}
	if ev.Err != "" {
		s += " error: " + ev.Err
	}
	return s
}

// inject fires f and registers its heal with the test as a safety net.
func inject(ctx context.Context, t *testing.T, env *faults.Env, f faults.Fault) faults.Heal {
	t.Helper()
	heal, err := env.Inject(ctx, f)
	if err != nil {
		t.Fatalf("inject %v: %v", f, err)
	}
	t.Cleanup(func() { heal(context.Background()) })
	return heal
}

// healthy checks that every member is up, one leader is agreed, and a
// write succeeds.
func healthy(ctx context.Context, t *testing.T, c *cluster.Cluster) {
	t.Helper()
	if err := c.WaitHealthy(ctx); err != nil {
		t.Fatal(err)
	}
	for _, m := range c.Members() {
		if !m.Running() {
			t.Fatalf("member %s is down", m.Name())
		}
	}
	pctx, cancel := context.WithTimeout(ctx, patience.Scale(10*time.Second))
	defer cancel()
	if _, err := clustertest.Observer(t, c.Members()...).Put(pctx, "healthy", "yes"); err != nil {
		t.Fatalf("a write after the faults: %v", err)
	}
}

// lastEvent returns the Env's last event.
func lastEvent(t *testing.T, env *faults.Env) checker.FaultEvent {
	t.Helper()
	evs := env.Log().Events()
	if len(evs) == 0 {
		t.Fatal("no fault event recorded")
	}
	return evs[len(evs)-1]
}

// checkEvent checks that ev is a healed, error-free event of the named
// fault on the given targets.
func checkEvent(t *testing.T, ev checker.FaultEvent, name string, targets []string) {
	t.Helper()
	if ev.Name != name || !equal(ev.Targets, targets) || !ev.Healed || ev.Err != "" || ev.End < ev.Start {
		t.Errorf("event %s; want %s on %v, healed, no error, end ≥ start", describe(ev), name, targets)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

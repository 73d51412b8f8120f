package clustertest

import (
	"fmt"
	"os"
	"testing"

	"github.com/etcdsim/etcdsim/internal/bubble"
)

// Virtual runs f with t in a synctest bubble, where a cluster
// started with cluster.Config{Clock: cluster.ClockVirtual} runs on the
// bubble's clock: time moves only when every goroutine in the bubble waits,
// and then jumps to the next timer, so lease TTLs, election timeouts and
// sleeps cost no wall time. Everything the test does with the cluster
// belongs inside f — the cluster, its clients, Context, the waits — and f
// must not call t.Run or t.Parallel. A bubble whose clock stands still for
// a minute of wall time while f runs (a goroutine spinning, stuck on a
// mutex held by one that waits, or waiting on a real socket) fails the
// test: every goroutine's stack goes to standard error, then a panic names
// the test and the goroutines that held the clock, with their stacks.
//
//	clustertest.Virtual(t, func(t *testing.T) {
//		c := cluster.New(t, cluster.Config{Clock: cluster.ClockVirtual})
//		...
//	})
func Virtual(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	bubble.Test(t, bubble.Options{Name: t.Name(), OnFrozen: func(fr *bubble.Frozen) {
		// Every stack first, then the verdict and the few goroutines that
		// hold the clock: a log cut to its tail still names the test and
		// the culprits.
		fmt.Fprintf(os.Stderr, "every goroutine of the frozen bubble of %s:\n%s\n", t.Name(), fr.Stacks)
		panic(fr.Error() + "\n\nthe goroutines not durably blocked:\n" + fr.Suspects)
	}}, f)
}

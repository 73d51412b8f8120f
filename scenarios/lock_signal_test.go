package scenarios_test

import (
	"context"
	"strings"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/scenarios"
)

// silentLock is a mutex whose holders' Done never closes: its recipe
// never tells a holder that its lease may be gone.
type silentLock struct{ lock.Locker }

type silentHeld struct{ lock.Held }

func (silentHeld) Done() <-chan struct{} { return nil }

func newSilentLock(cli *clientv3.Client, name string, opts lock.Options) (lock.Locker, error) {
	l, err := lock.NewMutex(cli, name, opts)
	return silentLock{l}, err
}

func (l silentLock) Lock(ctx context.Context) (lock.Held, error) {
	h, err := l.Locker.Lock(ctx)
	if err != nil {
		return nil, err
	}
	return silentHeld{h}, nil
}

// A lock holder cut off past its TTL that works on after its successor
// took the lock is told apart by the sentence of the overlap: its recipe
// had not signalled the loss by the release — keepalive-misconfigured's
// Done closes 1.5 TTLs after the last renewal, after the fenced resource
// has stopped the holder, and a Done that never closes — and says how
// long after the server ended the lease. (A signal that came, late, within
// the hold is TestLeaseExpirySentences' case, in package checker: here the
// fenced resource stops the holder first.) Detection is a rate: each case
// has DetectionSeeds seeds to show its sentence.
func TestLockLossNeverSignalled(t *testing.T) {
	base, err := scenarios.Lookup("lock/keepalive-misconfigured/isolate-holder")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		s    scenarios.Scenario
		says string
	}{
		{"keepalive-misconfigured", base, "the recipe never signalled the loss while it held: its holder's Done was still open when the workload released the lock at "},
		{"silent", base.WithLock(lock.Recipe{Name: "silent", Summary: "Done never closes", New: newSilentLock}),
			"the recipe never signalled the loss while it held: its holder's Done was still open when the workload released the lock at "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var seen []string
			for _, s := range scenarios.Seeds(1, scenarios.DetectionSeeds, tt.s) {
				r, err := scenarios.Run(context.Background(), s, scenarios.Options{})
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				for _, c := range r.Checks {
					for _, v := range c.Violations {
						if strings.Contains(v.Message, tt.says) {
							return
						}
						seen = append(seen, v.Message)
					}
				}
			}
			t.Errorf("no violation in %d seeds said %q; they said:\n%s", scenarios.DetectionSeeds, tt.says, strings.Join(seen, "\n"))
		})
	}
}

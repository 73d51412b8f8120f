package faults_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/faults"
)

// A lease revoke aimed at a holder whose recipe offers no lease is not
// applicable to that recipe: the event says why, it is neither an error
// nor in force, and a schedule that fires it reports no error.
func TestRevokeLeaseNotApplicable(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		ctx := clustertest.Context(t)
		_, env := start(t, 3, "c1", "c2", "c3")
		const why = `lock recipe "mine": its holder (*main.held) has no Lease method (lock.Leaser)`
		acquired(ctx, env, "c2", "K", 42) // an earlier holder's lease, released with it
		env.NoLease("c2", why)
		acquired(ctx, env, "c2", "L", 0)

		_, err := env.Inject(ctx, faults.RevokeLease(faults.LockHolder("L")))
		if !errors.Is(err, faults.ErrNotApplicable) || !strings.Contains(err.Error(), why) {
			t.Fatalf("Inject: %v; want an error wrapping ErrNotApplicable that says %q", err, why)
		}
		ev := lastEvent(t, env)
		if ev.NotApplicable != "client c2: "+why || ev.Err != "" || ev.InForce() || ev.End != ev.Start {
			t.Errorf("event %s, not applicable %q; want no error, not in force, and the reason", describe(ev), ev.NotApplicable)
		}

		// The same revoke on a trigger: the schedule goes on and reports no
		// error, and the event is in the run's history.
		env.NoLease("c1", why)
		tl := &faults.Timeline{Triggers: []faults.Trigger{
			faults.On(faults.Match{Kind: checker.KindAcquire, Key: "M"}, 0, faults.RevokeLease(faults.LockHolder("M"))),
		}, End: 500 * time.Millisecond}
		run, err := tl.Arm(ctx, env)
		if err != nil {
			t.Fatal(err)
		}
		acquired(ctx, env, "c1", "M", 0)
		if err := run(); err != nil {
			t.Errorf("a schedule whose only fault did not apply: %v; want no error", err)
		}
		var na int
		for _, ev := range env.Recorder().History().Faults {
			if ev.NotApplicable != "" {
				na++
			}
		}
		if na != 2 {
			t.Errorf("%d not-applicable events in the history, want 2", na)
		}

		// A client whose workload said nothing is still an error, which says
		// what was missing.
		_, err = env.Inject(ctx, faults.RevokeLease(faults.Client("c3")))
		if err == nil || errors.Is(err, faults.ErrNotApplicable) {
			t.Errorf("revoke of a client nobody explained: %v; want an error that is not ErrNotApplicable", err)
		}
	})
}

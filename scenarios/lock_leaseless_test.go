package scenarios_test

import (
	"context"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/lease"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/scenarios"
)

// leaselessLock is a user's own lock, written as a user would, that tells
// nothing about its lease: its holders implement lock.Held and nothing
// more. It is correct — one key created only if absent, on a lease kept by
// a lease.Guard whose Done is the holder's, and the key's create revision
// as the fencing token — so the standard mix has every reason to pass it.
type leaselessLock struct {
	cli     *clientv3.Client
	key     string
	ttl     time.Duration
	noToken bool // its holders' Token is 0: it hands out no fencing token
}

func newLeaselessLock(cli *clientv3.Client, name string, opts lock.Options) (lock.Locker, error) {
	return &leaselessLock{cli: cli, key: "user/locks/" + name, ttl: cmpOr(opts.TTL, lock.DefaultTTL)}, nil
}

func cmpOr(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// leaselessHeld offers Key, Token, Done and Unlock: no Lease, no Owned, no Put.
type leaselessHeld struct {
	g     *lease.Guard
	key   string
	token int64
}

func (h *leaselessHeld) Key() string                      { return h.key }
func (h *leaselessHeld) Token() int64                     { return h.token }
func (h *leaselessHeld) Done() <-chan struct{}            { return h.g.Done() }
func (h *leaselessHeld) Unlock(ctx context.Context) error { return h.g.Close(ctx) }

func (l *leaselessLock) Lock(ctx context.Context) (lock.Held, error) {
	g, err := lease.Grant(ctx, l.cli, l.ttl)
	if err != nil {
		return nil, err
	}
	for {
		resp, err := l.cli.Txn(ctx).
			If(clientv3.Compare(clientv3.CreateRevision(l.key), "=", 0)).
			Then(clientv3.OpPut(l.key, "", clientv3.WithLease(g.ID()))).
			Commit()
		if err == nil && resp.Succeeded {
			h := &leaselessHeld{g: g, key: l.key, token: resp.Header.Revision}
			if l.noToken {
				h.token = 0
			}
			return h, nil
		}
		if err == nil {
			err = l.waitDeleted(ctx, g, resp.Header.Revision)
		}
		if err != nil {
			g.Close(context.WithoutCancel(ctx))
			return nil, err
		}
	}
}

// waitDeleted waits until the key is deleted after rev, ctx ends, or the
// waiter's lease may be gone.
func (l *leaselessLock) waitDeleted(ctx context.Context, g *lease.Guard, rev int64) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events := l.cli.Watch(wctx, l.key, clientv3.WithRev(rev+1), clientv3.WithFilterPut())
	for {
		select {
		case wr, ok := <-events:
			if !ok || wr.Err() != nil || len(wr.Events) > 0 {
				return ctx.Err() // look again
			}
		case <-g.Done():
			return g.Err()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// A lock whose holders tell no lease runs through every LockSafety
// scenario and gets a verdict from every checker: the standard mix's lease
// revoke is recorded as not applicable to the recipe, naming it and the
// interface its holder lacks, and is no schedule error. Under -race only
// the standard mix runs (its runs are CPU-bound, and the detector slows
// them about tenfold, as the registry's); make test runs them all once
// more without it, in the registry's step.
func TestLockSafetyLeaselessHolder(t *testing.T) {
	r := lock.Recipe{Name: "leaseless", Summary: "a user's lock whose holders tell no lease", New: newLeaselessLock}
	for _, s := range scenarios.LockSafety(r) {
		if scenarios.RaceDetector && !strings.HasSuffix(s.Name, "/standard-mix") {
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			s.Workload.Duration = scenarios.Duration(8 * time.Second)
			res, err := scenarios.Run(context.Background(), s, scenarios.Options{})
			if err != nil {
				t.Fatalf("Run: %v; want a verdict", err)
			}
			if res.ScheduleErr != "" {
				t.Errorf("schedule error %q; want none: a fault that does not apply is no error", res.ScheduleErr)
			}
			for _, c := range res.Checks {
				t.Logf("%s: %s: %s", c.Checker, c.Verdict, c.Summary)
				if c.Verdict == checker.VerdictInvalid {
					t.Errorf("%s: invalid: %s", c.Checker, c.Summary)
				}
			}
			t.Logf("met %v: %s", res.Met, res.Why)
			var na []checker.FaultEvent
			for _, ev := range res.Faults {
				if ev.Err != "" {
					t.Errorf("fault %s failed: %s", ev.Name, ev.Err)
				}
				if ev.NotApplicable != "" {
					na = append(na, ev)
				}
			}
			if !strings.HasSuffix(s.Name, "/standard-mix") {
				return
			}
			if len(na) != 1 {
				t.Fatalf("%d not-applicable fault events, want the lease revoke: %+v", len(na), res.Faults)
			}
			for _, want := range []string{`lock recipe "leaseless"`, "no Lease method", "lock.Leaser"} {
				if !strings.Contains(na[0].NotApplicable, want) {
					t.Errorf("%s not applicable: %q does not say %q", na[0].Name, na[0].NotApplicable, want)
				}
			}
		})
	}
}

// A lock that hands out no fencing token (Token 0) is judged too: fencing
// cannot decide and says why, instead of calling the history invalid, and
// the guarded resource shows what a paused holder without a token does.
func TestLockSafetyTokenlessHolder(t *testing.T) {
	r := lock.Recipe{Name: "tokenless", Summary: "a user's lock without tokens",
		New: func(cli *clientv3.Client, name string, opts lock.Options) (lock.Locker, error) {
			l, err := newLeaselessLock(cli, name, opts)
			l.(*leaselessLock).noToken = true
			return l, err
		}}
	s := scenarios.LockSafety(r)[1] // pause-holder
	s.Workload.Duration = scenarios.Duration(6 * time.Second)
	res, err := scenarios.Run(context.Background(), s, scenarios.Options{})
	if err != nil {
		t.Fatalf("Run: %v; want a verdict", err)
	}
	for _, c := range res.Checks {
		t.Logf("%s: %s: %s", c.Checker, c.Verdict, c.Summary)
		if c.Verdict == checker.VerdictInvalid {
			t.Errorf("%s: invalid: %s", c.Checker, c.Summary)
		}
		if c.Checker == checker.CheckerFencing && (c.Verdict != checker.VerdictUnknown || !strings.Contains(c.Summary, "no guarded write carried a fencing token")) {
			t.Errorf("fencing of a lock without tokens: %s: %s; want unknown, saying no write carried a token", c.Verdict, c.Summary)
		}
	}
	t.Logf("met %v: %s", res.Met, res.Why)
}

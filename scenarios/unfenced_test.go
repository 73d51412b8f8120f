package scenarios_test

import (
	"context"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/election"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/scenarios"
)

// tokenless is a correct mutex whose holders show no fencing token, as a
// library's lock descriptor that exposes no revision; declared says
// whether it says so (lock.Unfenced).
type tokenless struct{ lock.Locker }

func (l tokenless) Lock(ctx context.Context) (lock.Held, error) {
	h, err := l.Locker.Lock(ctx)
	if err != nil {
		return nil, err
	}
	return noToken{h}, nil
}

type noToken struct{ lock.Held }

func (noToken) Token() int64 { return 0 }

type declared struct{ tokenless }

func (declared) Unfenced() string { return "its lock descriptor exposes no revision" }

func newTokenless(declare bool) lock.NewLocker {
	return func(cli *clientv3.Client, name string, opts lock.Options) (lock.Locker, error) {
		l, err := lock.NewMutex(cli, name, opts)
		if declare {
			return declared{tokenless{l}}, err
		}
		return tokenless{l}, err
	}
}

// A lock that declares it hands out no fencing token has fencing reported
// as not applicable, saying why, and is judged by the rest; one that does
// not declare it has fencing judged unknown, and a pass is not met.
func TestUnfencedLock(t *testing.T) {
	for _, declare := range []bool{true, false} {
		name := map[bool]string{true: "declared", false: "undeclared"}[declare]
		t.Run(name, func(t *testing.T) {
			s := scenarios.LockSafety(lock.Recipe{Name: "tokenless-" + name, Summary: "no token", New: newTokenless(declare)})[0]
			s.Workload.Duration = scenarios.Duration(4 * time.Second)
			r, err := scenarios.Run(context.Background(), s, scenarios.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var fencing *checker.Result
			for i := range r.Checks {
				if r.Checks[i].Checker == checker.CheckerFencing {
					fencing = &r.Checks[i]
				}
			}
			na := strings.Join(r.NotApplicable, "\n")
			if declare {
				if fencing != nil || !strings.Contains(na, "fencing: not applicable") || !strings.Contains(na, "exposes no revision") {
					t.Errorf("fencing judged %v, NotApplicable %q; want it left out, saying why", fencing, r.NotApplicable)
				}
				if r.Verdict == checker.VerdictViolation {
					t.Errorf("a correct mutex without tokens: %s", r.Why)
				}
				return
			}
			if fencing == nil || fencing.Verdict != checker.VerdictUnknown || na != "" || r.Met {
				t.Errorf("fencing %v, NotApplicable %q, met %v; want fencing unknown and the pass not met", fencing, r.NotApplicable, r.Met)
			}
		})
	}
}

// termless is a correct election whose terms carry no number, and says so.
type termless struct{ election.Elector }

func (e termless) Campaign(ctx context.Context, v string) (election.Leadership, error) {
	l, err := e.Elector.Campaign(ctx, v)
	if err != nil {
		return nil, err
	}
	return noTerm{l}, nil
}

func (termless) Unfenced() string { return "its leader participation exposes no revision" }

type noTerm struct{ election.Leadership }

func (noTerm) Term() int64 { return 0 }

// An election that declares it has no terms has fencing left out as not
// applicable, and is judged by who led when.
func TestTermlessElection(t *testing.T) {
	s := scenarios.ElectionSafety(election.Recipe{Name: "termless", Summary: "no term",
		New: func(cli *clientv3.Client, prefix string, opts election.Options) (election.Elector, error) {
			e, err := election.NewRechecked(cli, prefix, opts)
			return termless{e}, err
		}})[0]
	s.Workload.Duration = scenarios.Duration(4 * time.Second)
	r, err := scenarios.Run(context.Background(), s, scenarios.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range r.Checks {
		if c.Checker == checker.CheckerFencing {
			t.Errorf("fencing judged (%s: %s); want it left out", c.Verdict, c.Summary)
		}
	}
	if na := strings.Join(r.NotApplicable, "\n"); !strings.Contains(na, `election recipe "termless" hands out no fencing token (its leader participation exposes no revision)`) {
		t.Errorf("NotApplicable = %q; want fencing left out, saying why", r.NotApplicable)
	}
	if r.Verdict == checker.VerdictViolation {
		t.Errorf("a correct election without terms: %s", r.Why)
	}
}

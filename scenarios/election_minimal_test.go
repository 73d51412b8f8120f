package scenarios_test

import (
	"context"
	"strings"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/election"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/scenarios"
)

// campaignOnly is a user's election with only what election.Elector asks
// for: Campaign and Close. It borrows the rechecked recipe's and hides
// the rest.
type campaignOnly struct{ e election.Elector }

func (c campaignOnly) Campaign(ctx context.Context, v string) (election.Leadership, error) {
	return c.e.Campaign(ctx, v)
}
func (c campaignOnly) Close() error { return c.e.Close() }

// leaderOnly adds Leader (election.LeaderReader) but not Observe.
type leaderOnly struct{ campaignOnly }

func (l leaderOnly) Leader(ctx context.Context) (election.LeaderInfo, error) {
	return l.e.(election.LeaderReader).Leader(ctx)
}

// A user's election needs only Campaign and Close to be judged: without
// Observe the observers poll Leader, and without either they record that
// they see nothing, naming the recipe and the interfaces it lacks — the
// run still gets its verdicts.
func TestElectionSafetyMinimalElector(t *testing.T) {
	tests := []struct {
		name     string
		wrap     func(election.Elector) election.Elector
		observed bool   // the observer records leaders
		says     string // what the observer's record of not seeing says
	}{
		{name: "campaign-only", wrap: func(e election.Elector) election.Elector { return campaignOnly{e} },
			says: "neither Observe (election.Observer) nor Leader (election.LeaderReader)"},
		{name: "leader-only", wrap: func(e election.Elector) election.Elector { return leaderOnly{campaignOnly{e}} },
			observed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := election.Recipe{Name: tt.name, Summary: "a user's election",
				New: func(cli *clientv3.Client, prefix string, opts election.Options) (election.Elector, error) {
					e, err := election.NewRechecked(cli, prefix, opts)
					if err != nil {
						return nil, err
					}
					return tt.wrap(e), nil
				}}
			s := scenarios.ElectionSafety(r)[1] // pause-leader: 6s
			res, err := scenarios.Run(context.Background(), s, scenarios.Options{})
			if err != nil {
				t.Fatalf("Run: %v; want a verdict", err)
			}
			if res.ScheduleErr != "" {
				t.Errorf("schedule error: %s", res.ScheduleErr)
			}
			for _, c := range res.Checks {
				t.Logf("%s: %s: %s", c.Checker, c.Verdict, c.Summary)
				if c.Verdict == checker.VerdictInvalid {
					t.Errorf("%s: invalid: %s", c.Checker, c.Summary)
				}
			}
			var observed int
			var blind []string
			for _, op := range res.History().Ops {
				switch {
				case op.Kind == checker.KindLeaderObserved:
					observed++
				case op.Kind == "x-observe":
					blind = append(blind, op.Error)
				}
			}
			if got := observed > 0; got != tt.observed {
				t.Errorf("%d leaders observed; want some: %v", observed, tt.observed)
			}
			if tt.says == "" {
				if len(blind) > 0 {
					t.Errorf("the observer says it sees nothing: %q", blind)
				}
				return
			}
			if len(blind) != 1 || !strings.Contains(blind[0], tt.says) || !strings.Contains(blind[0], `"`+tt.name+`"`) {
				t.Errorf("the observer's record %q does not name the recipe %q and say %q", blind, tt.name, tt.says)
			}
		})
	}
}

// opaqueTerm is a leadership that tells no lease: no Lease method, and a
// key that does not end in the lease.
type opaqueTerm struct{ election.Leadership }

func (opaqueTerm) Key() string { return "user/leader" }

// opaqueElector is an election whose leaderships are opaqueTerms.
type opaqueElector struct{ campaignOnly }

func (o opaqueElector) Campaign(ctx context.Context, v string) (election.Leadership, error) {
	l, err := o.e.Campaign(ctx, v)
	if err != nil {
		return nil, err
	}
	return opaqueTerm{l}, nil
}

// A lease revoke aimed at a leader whose recipe tells no lease is recorded
// as not applicable, naming the recipe and election.Leaser, and the run is
// judged.
func TestElectionLeaseRevokeNotApplicable(t *testing.T) {
	r := election.Recipe{Name: "opaque", Summary: "a user's election that tells no lease",
		New: func(cli *clientv3.Client, prefix string, opts election.Options) (election.Elector, error) {
			e, err := election.NewRechecked(cli, prefix, opts)
			if err != nil {
				return nil, err
			}
			return opaqueElector{campaignOnly{e}}, nil
		}}
	s := scenarios.ElectionSafety(r)[1] // pause-leader's shape, with a revoke instead of the pause
	s.Faults.Timeline = &faults.Timeline{Triggers: []faults.Trigger{
		faults.On(faults.Match{Kind: checker.KindCampaign, Key: "E"}, 0, faults.RevokeLease(faults.ElectionLeader("E"))),
	}}
	res, err := scenarios.Run(context.Background(), s, scenarios.Options{})
	if err != nil {
		t.Fatalf("Run: %v; want a verdict", err)
	}
	if res.ScheduleErr != "" {
		t.Errorf("schedule error %q; want none", res.ScheduleErr)
	}
	for _, c := range res.Checks {
		t.Logf("%s: %s: %s", c.Checker, c.Verdict, c.Summary)
		if c.Verdict == checker.VerdictInvalid {
			t.Errorf("%s: invalid: %s", c.Checker, c.Summary)
		}
	}
	var na []string
	for _, ev := range res.Faults {
		if ev.NotApplicable != "" {
			na = append(na, ev.NotApplicable)
		}
	}
	if len(na) != 1 || !strings.Contains(na[0], `election recipe "opaque"`) || !strings.Contains(na[0], "election.Leaser") {
		t.Errorf("not-applicable reasons %q; want one naming the recipe and election.Leaser", na)
	}
}

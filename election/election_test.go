package election_test

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/election"
	"golang.org/x/sync/errgroup"
)

// term is one leadership as a candidate lived it: from the return of its
// Campaign to the moment it stopped acting as leader.
type term struct {
	who        string
	term       int64
	start, end time.Time
}

// overlaps returns every pair of terms that overlap in time, and every
// pair, in order of start, whose terms do not increase. On the virtual
// clock a term can begin in the very instant the one before it ended, so
// terms that begin together are taken in the order of their term numbers:
// the instant cannot order them, and neither overlaps the other unless one
// ends later.
func overlaps(terms []term) []string {
	terms = slices.Clone(terms)
	slices.SortFunc(terms, func(a, b term) int {
		if c := a.start.Compare(b.start); c != 0 {
			return c
		}
		return cmp.Compare(a.term, b.term)
	})
	var bad []string
	for i := 1; i < len(terms); i++ {
		prev, cur := terms[i-1], terms[i]
		if cur.start.Before(prev.end) {
			bad = append(bad, fmt.Sprintf("%s (term %d) began before %s (term %d) ended", cur.who, cur.term, prev.who, prev.term))
		}
		if cur.term <= prev.term {
			bad = append(bad, fmt.Sprintf("term %d of %s follows term %d of %s", cur.term, cur.who, prev.term, prev.who))
		}
	}
	return bad
}

// TestSingleLeader runs several candidates that campaign, proclaim, check
// that the election names them and resign, round after round, and checks
// that no two leaderships overlap and that terms strictly increase.
func TestSingleLeader(t *testing.T) {
	const candidates, rounds = 4, 5
	tests := []struct {
		name    string
		recipes []string // one per candidate, in turn
	}{
		{name: "rechecked", recipes: []string{"rechecked"}},
		{name: "server", recipes: []string{"server"}},
		{name: "mixed", recipes: []string{"rechecked", "server"}},
		// Healthy cluster, no pauses: these two pitfalls need a fault.
		{name: "ignoresdone", recipes: []string{"ignoresdone"}},
		{name: "unchecked", recipes: []string{"unchecked"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // a cluster of its own, on the virtual clock
			clustertest.Virtual(t, func(t *testing.T) {
				c := cluster.New(t, cluster.Config{})
				ctx := clustertest.Context(t)
				prefix := "/single/" + tt.name
				var mu sync.Mutex // guards terms
				var terms []term
				g, gctx := errgroup.WithContext(ctx)
				for i := range candidates {
					who := fmt.Sprintf("%s-%d", tt.name, i)
					r := recipe(t, tt.recipes[i%len(tt.recipes)])
					e := newElector(t, r, clustertest.Client(t, c, who), prefix, election.Options{TTL: 5 * time.Second})
					g.Go(func() error {
						for round := range rounds {
							tm, err := serve(gctx, e, who, round)
							if err != nil {
								return err
							}
							mu.Lock()
							terms = append(terms, tm)
							mu.Unlock()
						}
						return nil
					})
				}
				if err := g.Wait(); err != nil {
					t.Fatal(err)
				}
				if len(terms) != candidates*rounds {
					t.Fatalf("have %d terms, want %d", len(terms), candidates*rounds)
				}
				for _, b := range overlaps(terms) {
					t.Error(b)
				}
			})
		})
	}
}

// serve is one term of one candidate: campaign, proclaim, check the
// election names this candidate, resign.
func serve(ctx context.Context, e election.Elector, who string, round int) (term, error) {
	l, err := e.Campaign(ctx, who)
	if err != nil {
		return term{}, fmt.Errorf("%s: campaign: %w", who, err)
	}
	tm := term{who: who, term: l.Term(), start: time.Now()}
	value := fmt.Sprintf("%s/%d", who, round)
	if err := l.Proclaim(ctx, value); err != nil {
		return tm, fmt.Errorf("%s: proclaim: %w", who, err)
	}
	info, err := e.(election.LeaderReader).Leader(ctx)
	if err != nil {
		return tm, fmt.Errorf("%s: leader: %w", who, err)
	}
	if info.Key != l.Key() || info.Value != value || info.Term != l.Term() {
		return tm, fmt.Errorf("%s leads as %s (term %d) but the election names %+v", who, l.Key(), l.Term(), info)
	}
	tm.end = time.Now()
	if clustertest.Closed(l.Done()) {
		return tm, fmt.Errorf("%s: leadership lost on a healthy cluster", who)
	}
	if err := l.Resign(ctx); err != nil {
		return tm, fmt.Errorf("%s: resign: %w", who, err)
	}
	return tm, nil
}

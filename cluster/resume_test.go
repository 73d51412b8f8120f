package cluster

import (
	"slices"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/internal/bubble"
	"github.com/etcdsim/etcdsim/seed"
)

// The lessor's place in a resume is drawn from the run's seed alone: the
// same seed gives the same places, and the shares are those resume.go
// gives (before the raft tick heartbeat/500 ms, each of the other three a
// third of the rest).
func TestLessorPlaceDraws(t *testing.T) {
	const draws = 30000
	hb := 10 * time.Millisecond
	count := func(s seed.Seed) ([4]int, []lessorPlace) {
		n := newNetwork(s, nil, 0)
		defer n.cancel()
		var by [4]int
		var first []lessorPlace
		for i := range draws {
			p := n.drawLessorPlace(hb)
			by[p]++
			if i < 20 {
				first = append(first, p)
			}
		}
		return by, first
	}
	by, a := count(7)
	_, b := count(7)
	_, c := count(8)
	if !slices.Equal(a, b) {
		t.Errorf("seed 7 drew %v, then %v: one seed must give one sequence", a, b)
	}
	if slices.Equal(a, c) {
		t.Errorf("seeds 7 and 8 drew the same %v", a)
	}
	share := func(p lessorPlace) float64 { return float64(by[p]) / draws }
	if s := share(lessorBeforeTick); s < 0.012 || s > 0.028 {
		t.Errorf("the pass fell %v in %.3f of the draws, want about %.3f", lessorBeforeTick, s, float64(hb)/float64(lessorInterval))
	}
	for _, p := range []lessorPlace{lessorBeforeBytes, lessorWithBytes, lessorAfterBytes} {
		if s := share(p); s < 0.30 || s > 0.355 {
			t.Errorf("the pass fell %v in %.3f of the draws, want about 0.327", p, s)
		}
	}
}

// Only a lessor pass that races the released bytes can lose the lease of
// the freeze story (freeze_lease_test.go): a pass before the raft tick
// meets etcd's leadership check, one before the bytes proposes while raft
// still leads (the new leader overwrites it), one after them finds the
// lessor demoted. Each of those keeps the lease in every run.
func TestLessorPlaceDecidesLease(t *testing.T) {
	for _, p := range []lessorPlace{lessorBeforeTick, lessorBeforeBytes, lessorAfterBytes} {
		t.Run(p.String(), func(t *testing.T) {
			for i := range 2 {
				bubble.Test(t, bubble.Options{Name: t.Name()}, func(t *testing.T) {
					c := New(t, Config{Clock: ClockVirtual, Latency: time.Millisecond, Seed: seed.Seed(i)})
					c.net.rngMu.Lock()
					c.net.placed = &p
					c.net.rngMu.Unlock()
					if freezeLeaseStory(t, c) {
						t.Errorf("seed %d: the lease was lost with the lessor's pass %v", i, p)
					}
				})
			}
		})
	}
}

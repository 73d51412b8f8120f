package scenarios

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/seed"
)

// Every action of the fault vocabulary has an entry in the explorer's
// table — drawn, with its rule, or skipped with the reason — so a fault
// added to package faults is explored before it ships.
func TestExploreFaultsCoverTheVocabulary(t *testing.T) {
	var table []string
	for _, f := range exploreFaults {
		table = append(table, f.action)
		if f.skip == "" && (f.rule == "" || f.build == nil) {
			t.Errorf("fault %s is drawn but has no rule or no build", f.action)
		}
	}
	if diff := cmp.Diff(faults.Actions(), table); diff != "" {
		t.Errorf("the explorer's fault table is not the vocabulary (-faults.Actions +table):\n%s", diff)
	}
}

// Draws from a few hundred indices reach every drawable fault kind, every
// phase, alone and composed, and a draw is a function of the seed and the
// run's index alone.
func TestExploreDrawsCoverTheSpace(t *testing.T) {
	for _, fam := range exploreFamilies {
		t.Run(fam.family, func(t *testing.T) {
			d := drawer{fam: &fam, space: Space{}.withDefaults()}
			kinds, ph, sizes := map[string]int{}, map[string]int{}, map[int]int{}
			base := Scenario{Workload: Workload{Family: fam.family, Recipe: firstRecipe(t, fam.family)}}
			for i := range 600 {
				x := d.draw(seed.Seed(3).Rand(exploreStream + uint64(i)))
				sizes[len(x.Faults)]++
				for _, f := range x.Faults {
					kinds[f.Action]++
					ph[f.Phase]++
				}
				if i < 50 {
					if _, err := d.scenario(base, x, "x/y/z"); err != nil {
						t.Fatalf("draw %d: %v", i, err)
					}
				}
				if again := d.draw(seed.Seed(3).Rand(exploreStream + uint64(i))); !cmp.Equal(x, again, cmp.AllowUnexported(draw{}, drawnFault{})) {
					t.Fatalf("draw %d differs when drawn again from the same seed", i)
				}
			}
			for _, f := range drawable(5) {
				if fam.noForeign && f.aim == aimKeys {
					continue
				}
				if kinds[f.action] == 0 {
					t.Errorf("no draw of %s in 600", f.action)
				}
			}
			for _, p := range phases {
				if ph[p] == 0 {
					t.Errorf("no draw in phase %s", p)
				}
			}
			for n := range 4 {
				if sizes[n] == 0 {
					t.Errorf("no draw of %d faults", n)
				}
			}
		})
	}
}

func firstRecipe(t *testing.T, family string) string {
	t.Helper()
	switch family {
	case FamilyLock:
		return "mutex"
	case FamilyElection:
		return "rechecked"
	case FamilyDiscovery:
		return "keepalive"
	case FamilyRWMutex, FamilyBarrier:
		return "checked"
	case FamilyQueue:
		return "claimed"
	case FamilyRegister:
		return "kv"
	case FamilySTM:
		return "serializable"
	}
	t.Fatalf("no recipe for %s", family)
	return ""
}

// The judges of a draw follow the table's rule: in full on a healthy
// cluster, exclusion by the resource under a fault that may cost a holder
// its lease, no liveness under a foreign write.
func TestExploreJudgesFollowTheRule(t *testing.T) {
	lock, election, rw := exploreFamilyOf(FamilyLock), exploreFamilyOf(FamilyElection), exploreFamilyOf(FamilyRWMutex)
	names := func(cs []Check) []string {
		var out []string
		for _, c := range cs {
			n := string(c.Name)
			if c.ResourceOnly {
				n += "/resource"
			}
			out = append(out, n)
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		fam    *exploreFamily
		faults []string
		want   []string
	}{
		{"healthy", lock, nil, []string{"mutual-exclusion", "fencing", "lock-linearizable", "liveness"}},
		{"leader storm", lock, []string{"leader-storm"}, []string{"mutual-exclusion", "fencing", "lock-linearizable", "liveness"}},
		{"pause", lock, []string{"pause"}, []string{"mutual-exclusion/resource", "fencing", "liveness"}},
		{"pause and compact", lock, []string{"compact", "pause"}, []string{"mutual-exclusion/resource", "fencing", "liveness"}},
		{"put", lock, []string{"put"}, []string{"mutual-exclusion/resource", "fencing"}},
		{"election paused", election, []string{"pause"}, []string{"election-safety", "fencing", "liveness"}},
		{"election revoked", election, []string{"revoke-lease", "kill"}, []string{"fencing", "liveness"}},
		{"election deleted", election, []string{"delete"}, []string{"fencing"}},
		{"rwmutex healthy", rw, nil, []string{"rw-exclusion", "liveness"}},
		{"rwmutex paused", rw, []string{"pause"}, []string{"liveness"}},
		{"isolate", lock, []string{"isolate"}, []string{"mutual-exclusion", "fencing", "liveness"}},
		{"partition and pause", lock, []string{"partition", "pause"}, []string{"mutual-exclusion/resource", "fencing", "liveness"}},
		{"rwmutex isolated", rw, []string{"isolate"}, []string{"rw-exclusion", "liveness"}},
		{"queue killed", exploreFamilyOf(FamilyQueue), []string{"kill", "revoke-lease"}, []string{"queue-delivery"}},
		{"register partitioned", exploreFamilyOf(FamilyRegister), []string{"partition"}, []string{"register-linearizable", "watch-guarantees"}},
		{"stm paused", exploreFamilyOf(FamilySTM), []string{"pause"}, []string{"bank-total", "serializable"}},
		{"barrier crashed", exploreFamilyOf(FamilyBarrier), []string{"crash"}, []string{"barrier-safety"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var x draw
			for _, a := range tc.faults {
				x.Faults = append(x.Faults, drawnFault{Action: a})
			}
			l, foreign := x.loss()
			got := names(tc.fam.judges(l, x.livenessBound(), foreign))
			if !slices.Equal(got, tc.want) {
				t.Errorf("judges %v, want %v", got, tc.want)
			}
		})
	}
}

// docs/explore.md has a row for every fault of the table, with its loss.
func TestExploreDocsListEveryFault(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "explore.md"))
	if err != nil {
		t.Fatal(err)
	}
	words := map[loss]string{keepsAll: "keeps all", signalsLoss: "signals loss", mayLoseLease: "may lose lease", endsAtOnce: "ends at once", foreignKeys: "foreign keys"}
	for _, f := range exploreFaults {
		w := words[f.loss]
		if f.skip != "" {
			w = "not drawn"
		}
		if row := "| `" + f.action + "` | " + w + " |"; !strings.Contains(string(b), row) {
			t.Errorf("docs/explore.md has no row %q", row)
		}
	}
}

// A draw's regular compactions end before its liveness window: each is a
// fault with its own heal, and one inside the window would move the last
// heal to the run's end and leave liveness nothing to judge. The window
// is the bound and the waiters' slack after the last heal.
func TestExploreCompactionsLeaveTheLivenessWindow(t *testing.T) {
	d := drawer{fam: exploreFamilyOf(FamilyLock), space: Space{}.withDefaults()}
	checked := 0
	for i := range 300 {
		x := d.draw(seed.Seed(7).Rand(exploreStream + uint64(i)))
		if x.CompactEvery == 0 {
			continue
		}
		tl, err := d.timeline(x, "L")
		if err != nil {
			t.Fatalf("draw %d: %v", i, err)
		}
		window := x.Duration.D() - x.livenessBound() - x.slack()
		for _, st := range tl.Steps {
			if st.Fault.String() == "compact" && st.At > window {
				t.Fatalf("draw %d compacts at %v, inside its liveness window from %v", i, st.At, window)
			}
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no draw with regular compactions in 300")
	}
}

// Under a fault that signals loss exclusion is judged by who held when,
// so a drawn holder looks at least every quarter TTL, as a careful holder
// must to end its hold before its lease could expire; a draw's standing
// link delays signal loss, no worse.
func TestExploreSignalsLossHoldersLookEveryQuarterTTL(t *testing.T) {
	d := drawer{fam: exploreFamilyOf(FamilyLock), space: Space{}.withDefaults()}
	checked := 0
	for i := range 600 {
		x := d.draw(seed.Seed(11).Rand(exploreStream + uint64(i)))
		if l, _ := x.loss(); l != signalsLoss {
			continue
		}
		if every := x.Hold.D() / time.Duration(x.Writes); every > x.TTL.D()/4 {
			t.Fatalf("draw %d (%s) looks every %v, more than a quarter of its TTL %v", i, x, every, x.TTL.D())
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no draw that signals loss in 600")
	}
	x := draw{LinkDelay: []linkDelay{{Client: "c1", Delay: Duration(20 * time.Millisecond), Jitter: Duration(20 * time.Millisecond)}}}
	if l, _ := x.loss(); l != signalsLoss {
		t.Errorf("a standing link delay alone loses %d, want signals loss", l)
	}
}

// A fault aimed at the member a client is pinned to, in a phase that
// waits for an operation, waits for that client's own: the member is the
// holder's as it acquires.
func TestExplorePinnedFaultsWaitForTheirClient(t *testing.T) {
	d := drawer{fam: exploreFamilyOf(FamilyLock), space: Space{}.withDefaults()}
	x := draw{Members: 3, Clients: 2, TTL: Duration(time.Second), Hold: Duration(2 * time.Second), Writes: 8, Duration: Duration(10 * time.Second),
		Faults: []drawnFault{
			{Action: "partition", Target: rolePinned, Client: "c2", Phase: PhaseAcquire, For: Duration(2 * time.Second)},
			{Action: "cut", Target: rolePinned, To: roleLeader, Client: "c1", Phase: PhaseHold, For: Duration(time.Second)},
			{Action: "isolate", Target: roleHolder, Client: "c1", Phase: PhaseExpiry, For: Duration(time.Second)},
		}}
	tl, err := d.timeline(x, "L")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tr := range tl.Triggers {
		got = append(got, tr.On.Client)
	}
	if want := []string{"c2", "c1", ""}; !slices.Equal(got, want) {
		t.Errorf("triggers wait for clients %q, want %q", got, want)
	}
}

// Draws compose one fault most often, and no fault next, within the
// space's bounds.
func TestExploreFaultCountsFavourOne(t *testing.T) {
	counts := map[int]int{}
	rng := seed.Seed(2).Rand(1)
	for range 7000 {
		counts[faultCount(rng, 0, 3)]++
	}
	if !(counts[1] > counts[0] && counts[0] > counts[2] && counts[0] > counts[3]) {
		t.Errorf("fault counts %v: want one most often, then none", counts)
	}
	for range 100 {
		if n := faultCount(rng, 2, 2); n != 2 {
			t.Fatalf("faultCount(2, 2) = %d", n)
		}
		if n := faultCount(rng, 1, 3); n < 1 || n > 3 {
			t.Fatalf("faultCount(1, 3) = %d", n)
		}
	}
}

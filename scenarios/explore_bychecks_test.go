package scenarios

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etcdsim/etcdsim/checker"
)

// The careful mutex, its holders checking by a read before each step,
// explored under lost responses beside a standing delay: the guard gave
// its lease up while the responses were lost and stopped renewing it, the
// holder's reads said yes — rightly — until the lease lapsed on the
// server, and the step it had begun just before ran on past its
// successor's acquire; the fenced resource refused that step's write.
// Judged by its release the hold overlapped (the flag that took the
// rebalanced space out); judged by its checks, as the explorer judges a
// holder that checks by a read, it does not.
func TestExploreJudgesReadCheckersByTheirChecks(t *testing.T) {
	dir := filepath.Join("testdata", "explore", "read-check-lost-responses")
	var x draw
	b, err := os.ReadFile(filepath.Join(dir, "draw.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &x); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "history.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := checker.ReadHistory(f)
	if err != nil {
		t.Fatal(err)
	}
	d := drawer{fam: exploreFamilyOf(FamilyLock), space: Space{}.withDefaults()}
	s, err := d.scenario(Scenario{Workload: Workload{Family: FamilyLock, Recipe: "mutex"}}, x, "lock/mutex/explore-4")
	if err != nil {
		t.Fatal(err)
	}
	judged := 0
	for _, c := range s.Checkers {
		if c.Name != checker.CheckerMutualExclusion {
			continue
		}
		judged++
		if !c.ByChecks {
			t.Errorf("a draw whose holders check by a read is judged by their releases")
		}
		if res := c.Run(h, x.TTL.D()); res.Verdict != checker.VerdictOK {
			t.Errorf("judged by its checks: %s %v, want ok", res.Verdict, res.Err())
		}
		c.ByChecks = false
		if res := c.Run(h, x.TTL.D()); res.Verdict != checker.VerdictViolation || !strings.Contains(res.Err().Error(), "c4/1 acquired lock L") {
			t.Errorf("judged by its release: %s %v, want the overlap that was flagged", res.Verdict, res.Err())
		}
	}
	if judged != 1 {
		t.Fatalf("the draw has %d mutual-exclusion judges, want 1: %+v", judged, s.Checkers)
	}
}

package checker_test

import (
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/checker"
)

// Each judge that takes a bound says what it takes when a check leaves
// it zero, and the judges that take none say so.
func TestDefaultBound(t *testing.T) {
	for _, tt := range []struct {
		name checker.Name
		ttl  time.Duration
		want time.Duration
		ok   bool
	}{
		{checker.CheckerLiveness, 6 * time.Second, 8 * time.Second, true},
		{checker.CheckerBarrierSafety, time.Second, 3 * time.Second, true},
		{checker.CheckerDiscoveryConvergence, 6 * time.Second, 2 * time.Second, true},
		{checker.CheckerLeftBehind, 6 * time.Second, 2 * time.Second, true},
		{checker.CheckerKeysOnLeases, 2 * time.Second, 7 * time.Second, true},
		{checker.CheckerMutualExclusion, time.Second, 0, false},
	} {
		t.Run(string(tt.name), func(t *testing.T) {
			if _, ok := checker.LookupJudge(tt.name); !ok {
				t.Fatalf("no judge %s", tt.name)
			}
			got, ok := checker.DefaultBound(tt.name, tt.ttl)
			if got != tt.want || ok != tt.ok {
				t.Errorf("DefaultBound(%s, %v) = %v, %v; want %v, %v", tt.name, tt.ttl, got, ok, tt.want, tt.ok)
			}
		})
	}
}

package scenarios_test

import (
	"strings"
	"testing"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/scenarios"
)

// Member binaries run on the real clock: a scenario that asks for them
// on the virtual clock is invalid, naming both fields.
func TestMemberBinariesNeedTheRealClock(t *testing.T) {
	s, err := scenarios.Lookup("lock/mutex/leader-kill")
	if err != nil {
		t.Fatal(err)
	}
	s.Cluster.MemberBinaries = true
	s.Cluster.Clock = cluster.ClockVirtual
	err = s.Validate()
	if err == nil || !strings.Contains(err.Error(), "member_binaries") || !strings.Contains(err.Error(), "cluster.clock") {
		t.Errorf("Validate = %v; want an error naming cluster.member_binaries and cluster.clock", err)
	}
	s.Cluster.Clock = cluster.ClockReal
	if err := s.Validate(); err != nil {
		t.Errorf("member binaries on the real clock: %v", err)
	}
}

package cluster

import (
	"fmt"
	"testing"
)

// TestFreezeLeaderLeaseRaceProcess is TestFreezeLeaderLeaseRace with the
// members as member binaries, the leader stopped with SIGSTOP and
// resumed with SIGCONT: the real thing the virtual freeze emulates, and
// what calibrates it (docs/faults.md quotes both rates). It must run on
// the real clock: a process cannot join a synctest bubble, and SIGSTOP
// stops the member's own clocks, which no bubble can. Each run takes
// about 15 s of wall time; FREEZE_LEASE_RUNS=N runs it N times and reports
// how often the lease was lost. It asserts what holds in every run.
func TestFreezeLeaderLeaseRaceBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("member binaries on the wall clock, 15 s a run")
	}
	runs := freezeLeaseRuns(t, 1)
	lost := 0
	for i := range runs {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			if freezeLeaseStory(t, New(t, Config{Clock: ClockReal, MemberBinaries: true})) {
				lost++
			}
		})
	}
	t.Logf("leader binary stopped (SIGSTOP) 8s, lease TTL 6s kept alive through a follower: lease lost in %d of %d runs", lost, runs)
}

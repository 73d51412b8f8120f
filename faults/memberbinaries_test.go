package faults_test

import (
	"strings"
	"testing"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/faults"
)

// binaryCases are the cases of TestEveryFaultOnBothClocks that reach a
// member itself, which a member binary meets as signals (freeze:
// SIGSTOP, kill: SIGKILL, stop: SIGTERM) or through its client API (a
// leader moved, a member replaced), plus isolate as a control.
var binaryCases = []string{
	"kill(leader)",
	"stop(follower)",
	"freeze(leader)",
	"freeze(pinned c1)",
	"isolate(leader)",
	"replace(follower)",
	"leader-storm(every 200ms)",
	"leader-kill-storm(every 500ms)",
}

// Every fault that reaches a member has, on member binaries, the effect
// it has on members in this process. Member binaries run on the real
// clock by nature (a binary cannot join a synctest bubble), so these
// cases do.
func TestMemberFaultsOnMemberBinaries(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the member binary and starts a cluster of member binaries a fault")
	}
	byFault := map[string]clockCase{}
	for _, cc := range clockCases {
		byFault[cc.fault] = cc
	}
	covered := map[string]bool{}
	for _, name := range binaryCases {
		cc, ok := byFault[name]
		if !ok {
			t.Fatalf("%s is no case of TestEveryFaultOnBothClocks", name)
		}
		f, err := faults.Parse(cc.fault)
		if err != nil {
			t.Fatal(err)
		}
		covered[strings.SplitN(f.String(), "(", 2)[0]] = true
		t.Run(cc.fault, func(t *testing.T) {
			runClockCase(t, cluster.Config{Clock: cluster.ClockReal, MemberBinaries: true}, cc, f)
		})
	}
	for _, action := range []string{"kill", "stop", "freeze", "replace", "leader-storm", "leader-kill-storm"} {
		if !covered[action] {
			t.Errorf("no case injects %s on member binaries", action)
		}
	}
}

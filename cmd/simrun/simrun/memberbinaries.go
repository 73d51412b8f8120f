package simrun

import (
	"fmt"
	"os"

	"github.com/etcdsim/etcdsim/cluster"
)

// applyMemberBinaries runs every job's members as member binaries, each an
// operating-system program of its own, if on is set (-member-binaries),
// on the real clock; off leaves each scenario's own setting.
func applyMemberBinaries(jobs []job, on bool) {
	if !on {
		return
	}
	for i := range jobs {
		c := &jobs[i].scenario.Cluster
		c.MemberBinaries = true
		if c.Clock == cluster.ClockDefault {
			c.Clock = cluster.ClockReal
		}
	}
}

// provideMemberBinary builds the member binary once, if any job runs
// member binaries, and hands it to every run through the environment, so
// that no run (each a child process) builds its own. The returned cleanup
// removes what was built.
func (e *env) provideMemberBinary(jobs []job) (cleanup func(), err error) {
	need := false
	for _, j := range jobs {
		need = need || j.scenario.Cluster.MemberBinaries
	}
	if !need || os.Getenv(cluster.MemberBinaryEnv) != "" {
		return func() {}, nil
	}
	fmt.Fprintf(e.stderr, "simrun: building the member binary\n")
	path, err := cluster.MemberBinary(e.ctx)
	if err != nil {
		return nil, err
	}
	if err := os.Setenv(cluster.MemberBinaryEnv, path); err != nil {
		return nil, err
	}
	return func() {
		os.Unsetenv(cluster.MemberBinaryEnv)
		if err := cluster.RemoveMemberBinary(); err != nil {
			fmt.Fprintf(e.stderr, "simrun: removing the member binary: %v\n", err)
		}
	}, nil
}

package simrun

import (
	"fmt"
	"os"

	"github.com/etcdsim/etcdsim/cluster"
)

// applyMemberProcesses runs every job's members as processes of their own
// if on is set (-member-processes), on the real clock; off leaves each
// scenario's own setting.
func applyMemberProcesses(jobs []job, on bool) {
	if !on {
		return
	}
	for i := range jobs {
		c := &jobs[i].scenario.Cluster
		c.MemberProcesses = true
		if c.Clock == cluster.ClockDefault {
			c.Clock = cluster.ClockReal
		}
	}
}

// provideMemberProgram builds the member program once, if any job runs
// member processes, and hands it to every run through the environment, so
// that no run (each a child process) builds its own. The returned cleanup
// removes what was built.
func (e *env) provideMemberProgram(jobs []job) (cleanup func(), err error) {
	need := false
	for _, j := range jobs {
		need = need || j.scenario.Cluster.MemberProcesses
	}
	if !need || os.Getenv(cluster.MemberProgramEnv) != "" {
		return func() {}, nil
	}
	fmt.Fprintf(e.stderr, "simrun: building the member program for member processes\n")
	path, err := cluster.MemberProgram(e.ctx)
	if err != nil {
		return nil, err
	}
	if err := os.Setenv(cluster.MemberProgramEnv, path); err != nil {
		return nil, err
	}
	return func() {
		os.Unsetenv(cluster.MemberProgramEnv)
		if err := cluster.RemoveMemberProgram(); err != nil {
			fmt.Fprintf(e.stderr, "simrun: removing the member program: %v\n", err)
		}
	}, nil
}

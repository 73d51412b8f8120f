package simrun

import (
	"fmt"
	"strings"
)

// leakWarnRuns is how many in-process runs of recipes that call etcd's
// server-side lock or election service simrun takes without a warning.
const leakWarnRuns = 30

// leakWarning returns the warning an -inprocess batch of jobs calls for,
// or "". Each member that serves a server-side lock or election call
// leaves etcd's in-process client running after it closes
// (docs/upstream.md); over many runs in one process that piles up.
func leakWarning(jobs []job, inProcess bool) string {
	if !inProcess || len(jobs) <= leakWarnRuns {
		return ""
	}
	var names []string
	seen := map[string]bool{}
	for _, j := range jobs {
		if r := j.scenario.Workload.ServerSideRecipe(); r != "" && !seen[r] {
			seen[r] = true
			names = append(names, r)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("simrun: warning: %d runs in this process use etcd's server-side lock or election service (%s): "+
		"each member that serves one leaves etcd's in-process client behind after it closes, about 5 goroutines and 1.3 MB, "+
		"so memory grows run after run (see docs/upstream.md); without -inprocess each run's process ends and takes them with it\n",
		len(jobs), strings.Join(names, ", "))
}

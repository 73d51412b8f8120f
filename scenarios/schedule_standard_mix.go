package scenarios

import (
	"time"

	"github.com/etcdsim/etcdsim/faults"
)

// standardMix is the timeline every correct recipe must survive: a leader
// kill, a minority partition, a client cut off, a leader-change storm and a
// compaction, one after another, healed with time to spare before the run
// ends so that liveness is judged on a healthy cluster.
func standardMix() *faults.Timeline {
	s := time.Second
	return &faults.Timeline{Steps: []faults.Step{
		faults.At(500*time.Millisecond, s, faults.Kill(faults.Leader)),
		faults.At(2*s, 1200*time.Millisecond, faults.Partition(faults.Minority)),
		faults.At(3500*time.Millisecond, s, faults.Isolate(faults.Client("c1"))),
		faults.At(5*s, s, faults.LeaderStorm(200*time.Millisecond)),
		faults.At(6500*time.Millisecond, 0, faults.Compact()),
	}}
}

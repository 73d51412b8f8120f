package faults

import (
	"context"
	"errors"

	"github.com/etcdsim/etcdsim/cluster"
)

// Pause freezes each client t resolves to, as SIGSTOP would freeze its
// process: its links blackhole both ways, so its requests, lease
// keepalives and answers stop, and the Env's Gate holds its workload at
// its next Step. The heal restores the links and then opens the gate; the
// client carries on from where it stopped without re-checking anything.
//
// Aimed at a lock's holder right after it acquires (a Trigger on
// Acquired), a pause longer than the session's TTL lets the lease expire
// and a second client acquire before the first resumes.
func Pause(t Target) Fault {
	return Fault{
		action:  "pause",
		targets: []Target{t},
		kind:    clientsOnly,
		apply: func(ctx context.Context, x *shot) (healFunc, string, error) {
			ls := x.env.links()
			gate := x.env.Gate()
			var paused []string
			heal := func(context.Context) (string, error) {
				err := ls.restore()
				for _, cl := range paused {
					gate.Resume(cl)
				}
				return "", err
			}
			sh := x.env.shape()
			for _, cl := range x.targets[0] {
				gate.Pause(cl)
				paused = append(paused, cl)
				for _, m := range peers(sh, cl) {
					if err := errors.Join(ls.set(cl, m, cluster.Blackholed()), ls.set(m, cl, cluster.Blackholed())); err != nil {
						return heal, "", err
					}
				}
			}
			return heal, "", nil
		},
	}
}

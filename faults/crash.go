package faults

import (
	"context"
	"errors"
	"fmt"

	"github.com/etcdsim/etcdsim/checker"
)

// Crash kills each client t resolves to, as a process crash would: its
// etcd client is closed, so every keep-alive and watch it ran stops, and
// nothing is released — locks and leaderships it held are freed only when
// their leases expire. The crash is recorded as a checker.KindCrash
// operation of the client. The workload's next Gate().Step for the client
// blocks until the heal, when the client comes back as a restarted
// process would — a fresh etcd client from cluster.Client, the same
// links — and that Step returns ErrRestarted so the workload starts it
// afresh.
//
// A crash lasts for its duration: the time the process stays down.
func Crash(t Target) Fault {
	return Fault{
		action:  "crash",
		targets: []Target{t},
		kind:    clientsOnly,
		apply: func(ctx context.Context, x *shot) (healFunc, string, error) {
			gate := x.env.Gate()
			var crashed []string
			heal := func(context.Context) (string, error) {
				var errs []error
				for _, cl := range crashed {
					if _, err := x.env.c.RestartClient(cl); err != nil {
						errs = append(errs, fmt.Errorf("restarting client %s: %w", cl, err))
					}
					gate.Restart(cl)
				}
				return "", errors.Join(errs...)
			}
			for _, cl := range x.targets[0] {
				gate.Crash(cl)
				crashed = append(crashed, cl)
				if err := x.env.c.CrashClient(cl); err != nil {
					return heal, "", fmt.Errorf("crashing client %s: %w", cl, err)
				}
				x.env.rec.Instant(ctx, cl, checker.KindCrash, "", checker.Input{}, checker.Output{})
			}
			return heal, "", nil
		},
	}
}

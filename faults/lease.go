package faults

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
)

// RevokeLease revokes, now, the session lease of each client t resolves
// to: the lease of its latest recorded acquire, campaign or registration
// (checker.Output.Lease). The
// keys attached to it go at once: a lock it held is free for the next
// waiter, and the client learns of it only when its session notices.
func RevokeLease(t Target) Fault {
	return Fault{
		action:  "revoke-lease",
		targets: []Target{t},
		kind:    clientsOnly,
		instant: true,
		apply: func(ctx context.Context, x *shot) (healFunc, string, error) {
			cli, err := x.env.admin(nil)
			if err != nil {
				return noHeal, "", err
			}
			defer cli.Close()
			var done []string
			var errs []error
			for _, cl := range x.targets[0] {
				id, ok := x.env.SessionLease(cl)
				if !ok {
					errs = append(errs, fmt.Errorf("no session lease known for client %s: record its acquire, campaign or register with checker.Output.Lease", cl))
					continue
				}
				_, err := cli.Revoke(ctx, id)
				switch {
				case errors.Is(err, rpctypes.ErrLeaseNotFound):
					// Its session ended it first (a holder that released
					// and closed its session): what the fault would do is done.
					done = append(done, fmt.Sprintf("%s lease %x (already gone)", cl, int64(id)))
				case err != nil:
					errs = append(errs, fmt.Errorf("revoking lease %x of client %s: %w", int64(id), cl, err))
				default:
					done = append(done, fmt.Sprintf("%s lease %x", cl, int64(id)))
				}
			}
			return noHeal, "revoked " + strings.Join(done, ", "), errors.Join(errs...)
		},
	}
}

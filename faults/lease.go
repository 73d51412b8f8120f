package faults

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// RevokeLease revokes, now, the session lease of each client t resolves
// to: the lease of its latest recorded acquire, campaign or registration
// (checker.Output.Lease). The keys attached to it go at once: a lock it
// held is free for the next waiter, and the client learns of it only when
// its session notices.
//
// A client whose recipe offers no lease — its workload said so with
// Env.NoLease, naming the recipe and what it lacks — is left alone, and
// the event says why; if no client t resolves to has a lease, the fault is
// recorded as not applicable (ErrNotApplicable) and the run goes on.
func RevokeLease(t Target) Fault {
	return Fault{
		action:  "revoke-lease",
		targets: []Target{t},
		kind:    clientsOnly,
		instant: true,
		apply: func(ctx context.Context, x *shot) (healFunc, string, error) {
			var done, skipped []string
			var errs []error
			var ids []clientv3.LeaseID
			var owners []string
			for _, cl := range x.targets[0] {
				// Asked first: a lease recorded before the workload said
				// its recipe has none is an earlier holder's, long gone.
				if why, ok := x.env.noLeaseWhy(cl); ok {
					skipped = append(skipped, fmt.Sprintf("client %s: %s", cl, why))
					continue
				}
				id, ok := x.env.SessionLease(cl)
				if ok {
					ids, owners = append(ids, id), append(owners, cl)
					continue
				}
				errs = append(errs, fmt.Errorf("no session lease known for client %s: its recipe has not told the harness its lease, so there is nothing to revoke; "+
					"have what its lock, election or registration returns implement Lease (lock.Leaser, election.Leaser) or, for a lease a "+
					"read-write lock's waiter holds before it is granted, have its locker implement Session (rwmutex.Sessioner); "+
					"or leave revoke-lease out of the schedule for this client", cl))
			}
			if len(ids) == 0 && len(errs) == 0 {
				return noHeal, "", &notApplicable{why: joinWhy(skipped)}
			}
			if len(ids) > 0 {
				cli, err := x.env.admin(nil)
				if err != nil {
					return noHeal, "", err
				}
				defer cli.Close()
				for i, id := range ids {
					cl := owners[i]
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
			}
			var detail string
			if len(done) > 0 {
				detail = "revoked " + strings.Join(done, ", ")
			}
			if len(skipped) > 0 {
				detail = joinDetail(detail, "not applicable to "+joinWhy(skipped))
			}
			return noHeal, detail, errors.Join(errs...)
		},
	}
}

package discovery

import (
	"context"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/lease"
)

// BROKEN (deliberately): a registrar whose budget of registrations again
// is spent by the first one. It registers and keeps the lease alive like
// NewKeepAlive, and when the lease is lost it registers again, retrying
// until it succeeds; but the count of registrations again is never reset
// after one succeeds, so when the new lease is lost too — the second dip
// of a flapping network — it has none left and stops. The instance,
// healthy and serving, is gone from discovery until the process restarts.
// Reported as kratos #3464 (https://github.com/go-kratos/kratos/issues/3464):
// etcd unreachable twice in a short time, 5 s off and 5 s on, and the
// registry retried once where five were configured, then gave up; the
// same code as kratos #3883. A single loss of the lease — a revoke, one
// cut — does not show it. Done closes when it stops.
//
// newOneRetry returns a Registrar that registers again once in its life.
func newOneRetry(cli *clientv3.Client, service, addr string, opts Options) (Registrar, error) {
	reg, err := newRegistration(cli, service, addr, opts)
	if err != nil {
		return nil, err
	}
	return &oneRetry{keepAlive: keepAlive{registration: reg}}, nil
}

type oneRetry struct{ keepAlive }

func (r *oneRetry) Register(ctx context.Context) error {
	return r.register(ctx, r.keepOnce)
}

// keepOnce keeps the instance registered through one loss of its lease.
func (r *oneRetry) keepOnce(g *lease.Guard, rev int64) {
	r.hold(g, rev)
	g, rev, ok := r.again()
	if !ok {
		return
	}
	r.hold(g, rev) // the mistake: after this loss nothing registers again
}

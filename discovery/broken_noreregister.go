package discovery

import (
	"context"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/lease"
)

// BROKEN (deliberately): a registrar that never
// registers again after its lease is lost. It registers and keeps the
// lease alive like NewKeepAlive, but when the lease is lost — it expired
// while the process was paused or cut off, or someone revoked it — it
// simply stops. etcd has deleted the key with the lease (or will, now that
// nothing renews it), so the instance, still healthy and serving, is gone
// from discovery until the process restarts. Reported as go-zero #1926 and
// kratos #3883 (whose heartBeat returns when the keep-alive channel
// closes: "once that return fires, nothing in the process is responsible
// for registration any more"). Unlike those, Done closes when it stops, so
// a harness can see it.
//
// newNoReregister returns a Registrar that keeps its first lease alive and
// gives up when that lease is lost.
func newNoReregister(cli *clientv3.Client, service, addr string, opts Options) (Registrar, error) {
	reg, err := newRegistration(cli, service, addr, opts)
	if err != nil {
		return nil, err
	}
	return &noReregister{registration: reg}, nil
}

type noReregister struct{ *registration }

func (r *noReregister) Register(ctx context.Context) error {
	return r.register(ctx, func(g *lease.Guard, _ int64) {
		select {
		case <-g.Done(): // the lease is lost; the mistake: nothing registers again
		case <-r.ctx.Done():
		}
	})
}

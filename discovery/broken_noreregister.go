// BROKEN (deliberately): pitfall 12 of issue 4, a registrar that never
// registers again after its lease is lost. It registers and keeps the
// lease alive like NewKeepAlive, but when the keep-alive channel closes —
// the lease expired while the process was paused or cut off, or someone
// revoked it — it simply stops. etcd has deleted the key with the lease,
// so the instance, still healthy and serving, is gone from discovery until
// the process restarts. Reported as go-zero #1926 and kratos #3883 (whose
// heartBeat returns when the channel closes: "once that return fires,
// nothing in the process is responsible for registration any more").
// Unlike those, Done closes when it stops, so a harness can see it.

package discovery

import (
	"context"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// NewNoReregister returns a Registrar that keeps its first lease alive and
// gives up when that lease is lost.
//
// BROKEN (deliberately): pitfall 12; see the top of this file.
func NewNoReregister(cli *clientv3.Client, service, addr string, opts Options) (Registrar, error) {
	reg, err := newRegistration(cli, service, addr, opts)
	if err != nil {
		return nil, err
	}
	return &noReregister{registration: reg}, nil
}

type noReregister struct{ *registration }

func (r *noReregister) Register(ctx context.Context) error {
	id, _, err := r.start(ctx)
	if err != nil {
		return err
	}
	ka, err := r.cli.KeepAlive(r.ctx, id)
	if err != nil {
		close(r.done) // nothing to keep
		return err
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer close(r.done)
		for range ka {
			// The lease is alive; when the channel closes it is not.
		}
	}()
	return nil
}

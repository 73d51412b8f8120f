package discovery

import (
	"context"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/lease"
)

// NewKeepAlive returns a Registrar that registers addr under service in
// the record etcd's endpoints manager writes (client/v3/naming/endpoints,
// the format the naming resolver reads), attaches the key to a lease and
// keeps the lease alive with a lease guard. When the lease may be lost —
// expired while the process was cut off, revoked by someone, or no
// renewal answered in time — or the key is deleted, it grants a new lease
// and registers again, retrying until it succeeds or is closed. Each
// attempt is bounded by the TTL, and one that fails leaves the key where
// it was: registering again never deletes a registration that stood.
func NewKeepAlive(cli *clientv3.Client, service, addr string, opts Options) (Registrar, error) {
	reg, err := newRegistration(cli, service, addr, opts)
	if err != nil {
		return nil, err
	}
	return &keepAlive{registration: reg}, nil
}

type keepAlive struct{ *registration }

var _ Leaser = (*keepAlive)(nil)

func (r *keepAlive) Register(ctx context.Context) error {
	return r.register(ctx, r.keep)
}

// keep keeps the instance registered until the registrar is closed.
func (r *keepAlive) keep(g *lease.Guard, rev int64) {
	for {
		r.hold(g, rev)
		var ok bool
		if g, rev, ok = r.again(); !ok {
			return // Close removes the key and ends the guard
		}
	}
}

// again registers the instance again on a new lease, retrying until it
// succeeds, and returns the new lease's guard and the revision of the put;
// false once the registrar is closed.
func (r *keepAlive) again() (*lease.Guard, int64, bool) {
	for {
		if r.ctx.Err() != nil {
			return nil, 0, false
		}
		// Each attempt is bounded by the TTL: a request sent while the
		// process was cut off can be lost with the link's bytes and never
		// answered, and a lease granted a TTL ago is no use by the time
		// its guard starts.
		actx, cancel := context.WithTimeout(r.ctx, r.opts.TTL)
		ng, nrev, err := r.put(actx, false)
		cancel()
		if err == nil {
			// Best effort: the key is on the new lease now, and the
			// old one, no longer renewed, expires anyway.
			r.replace(ng).Close(context.WithoutCancel(r.ctx)) //nolint:errcheck // see above
			return ng, nrev, true
		}
		pause(r.ctx, retryPause)
	}
}

// hold returns when the guard's lease may be lost, the key (put at rev) is
// deleted, or the registrar is closed.
func (r *keepAlive) hold(g *lease.Guard, rev int64) {
	ctx, cancel := context.WithCancel(r.ctx)
	defer cancel()
	wch := r.cli.Watch(ctx, r.key, clientv3.WithRev(rev+1))
	for {
		select {
		case <-ctx.Done():
			return
		case <-g.Done():
			return // the lease expired, was revoked, or may have: see g.Err()
		case wr, ok := <-wch:
			if !ok || wr.Err() != nil {
				// The watch broke (a compaction, a lost member): look.
				resp, err := r.cli.Get(ctx, r.key)
				if err != nil || len(resp.Kvs) == 0 || clientv3.LeaseID(resp.Kvs[0].Lease) != g.ID() {
					return
				}
				wch = r.cli.Watch(ctx, r.key, clientv3.WithRev(resp.Header.Revision+1))
				continue
			}
			for _, ev := range wr.Events {
				if ev.Type == mvccpb.DELETE {
					return
				}
			}
		}
	}
}

package discovery

import (
	"context"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// NewKeepAlive returns a Registrar that registers addr under service with
// etcd's endpoints manager (client/v3/naming/endpoints, the record format
// the naming resolver reads), attaches the key to a lease and keeps the
// lease alive. When the lease is lost — expired while the process was cut
// off, revoked by someone — or the key is deleted, it grants a new lease
// and registers again, retrying until it succeeds or is closed.
func NewKeepAlive(cli *clientv3.Client, service, addr string, opts Options) (Registrar, error) {
	reg, err := newRegistration(cli, service, addr, opts)
	if err != nil {
		return nil, err
	}
	return &keepAlive{registration: reg}, nil
}

type keepAlive struct{ *registration }

func (r *keepAlive) Register(ctx context.Context) error {
	id, rev, err := r.start(ctx)
	if err != nil {
		return err
	}
	r.wg.Add(1)
	go r.run(id, rev)
	return nil
}

// run keeps the instance registered until the registrar is closed.
func (r *keepAlive) run(id clientv3.LeaseID, rev int64) {
	defer r.wg.Done()
	defer close(r.done)
	for {
		r.hold(id, rev)
		old := id
		for {
			if r.ctx.Err() != nil {
				return
			}
			var err error
			if id, rev, err = r.put(r.ctx); err == nil {
				break
			}
			pause(r.ctx, retryPause)
		}
		r.revoke(old) // best effort; the key is on the new lease now
	}
}

// hold returns when lease id is lost, the key (put at rev) is deleted, or
// the registrar is closed.
func (r *keepAlive) hold(id clientv3.LeaseID, rev int64) {
	ctx, cancel := context.WithCancel(r.ctx)
	defer cancel()
	ka, err := r.cli.KeepAlive(ctx, id)
	if err != nil {
		return
	}
	wch := r.cli.Watch(ctx, r.key, clientv3.WithRev(rev+1))
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-ka:
			if !ok {
				return // the lease expired, was revoked, or went unanswered for a TTL
			}
		case wr, ok := <-wch:
			if !ok || wr.Err() != nil {
				// The watch broke (a compaction, a lost member): look.
				resp, err := r.cli.Get(ctx, r.key)
				if err != nil || len(resp.Kvs) == 0 || clientv3.LeaseID(resp.Kvs[0].Lease) != id {
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

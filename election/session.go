package election

import (
	"context"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
)

// userSession grants a lease through a lease guard, for its checks of the
// TTL, and hands it at once to a concurrency.Session as users write it:
// the session alone renews the lease and decides when Done closes. The
// session is tracked, so the Elector's Close ends it.
func (b *base) userSession(ctx context.Context) (*concurrency.Session, sessionHolder, clientv3.LeaseID, error) {
	g, err := grant(ctx, b.cli, b.prefix, b.opts.TTL)
	if err != nil {
		return nil, sessionHolder{}, 0, err
	}
	g.Stop()
	id := g.ID()
	s, err := concurrency.NewSession(b.cli, concurrency.WithLease(id), concurrency.WithTTL(int(b.opts.TTL/time.Second)))
	if err != nil {
		g.Close(ctx) // revoke what no session keeps
		return nil, sessionHolder{}, 0, fmt.Errorf("election: session for lease %x: %w", int64(id), err)
	}
	h := sessionHolder{s}
	if err := b.track(h); err != nil {
		h.Close(ctx)
		return nil, sessionHolder{}, 0, err
	}
	return s, h, id, nil
}

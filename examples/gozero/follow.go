package gozero

import (
	"context"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// followRetry is how long follow waits before it reads the key back again
// after a failed read.
const followRetry = 100 * time.Millisecond

// follow keeps the publisher's key and lease those of the latest key
// go-zero wrote with the instance's address, from revision rev on, until
// ctx ends. go-zero registers again by itself — when its lease is lost,
// or its watch on its own key fails — under a new lease, and (without
// discov.WithId) a new key, and tells no one: following its writes is how
// the harness learns where the instance is registered now, and so which
// key it has moved from. A watch that fails (a compaction while the
// client was cut off) is replaced after a fresh read.
func (r *publisher) follow(ctx context.Context, rev int64) {
	defer close(r.followed)
	for ctx.Err() == nil {
		wch := r.cli.Watch(ctx, r.service+"/", clientv3.WithPrefix(), clientv3.WithRev(rev+1), clientv3.WithFilterDelete())
		for wr := range wch {
			if wr.Err() != nil {
				break
			}
			for _, ev := range wr.Events {
				rev = ev.Kv.ModRevision
				if string(ev.Kv.Value) == r.addr {
					r.mu.Lock()
					r.key, r.lease = string(ev.Kv.Key), clientv3.LeaseID(ev.Kv.Lease)
					r.mu.Unlock()
				}
			}
		}
		for ctx.Err() == nil {
			key, lease, at, err := r.readBack(ctx)
			if err == nil {
				r.mu.Lock()
				r.key, r.lease = key, lease
				r.mu.Unlock()
				rev = at
				break
			}
			select {
			case <-ctx.Done():
			case <-time.After(followRetry):
			}
		}
	}
}

package lock

import (
	"context"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
)

// keeper keeps one holder's lease alive and closes Done as soon as the
// lease may have expired: when no renewal has been confirmed for a whole
// TTL, counted on the holder's side from before the grant, or when the
// renewals stop. It then stops renewing, so the holder's view and etcd's
// agree: the lease is gone or about to be.
//
// concurrency.Session alone is not enough for this: its Done relies on the
// client's lessor, which checks deadlines every 500 ms and, until the
// first renewal is answered, assumes a 5 s TTL whatever the lease's own. A
// 1 s holder cut off right after its grant would learn it 5 s late.
type keeper struct {
	cli  *clientv3.Client
	id   clientv3.LeaseID
	ttl  int
	ctx  context.Context // ends when the keeper stops; a session made by session() stops with it
	stop context.CancelFunc
	done chan struct{} // closed when run returns
}

// newKeeper grants a lease of ttl seconds for a holder of lock pfx and
// keeps it alive. A cluster that grants more than ttl (its minimum is
// higher) is an error wrapping ErrTTL. The keeper outlives ctx: ctx bounds
// the grant only.
func newKeeper(ctx context.Context, cli *clientv3.Client, pfx string, ttl int) (*keeper, error) {
	start := time.Now()
	id, err := grantLease(ctx, cli, pfx, ttl)
	if err != nil {
		return nil, err
	}
	kctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	acks, err := cli.KeepAlive(kctx, id)
	if err != nil {
		stop()
		revokeQuietly(ctx, cli, id, ttl)
		return nil, fmt.Errorf("lock: %s: keep lease %x alive: %w", pfx, id, err)
	}
	k := &keeper{cli: cli, id: id, ttl: ttl, ctx: kctx, stop: stop, done: make(chan struct{})}
	go k.run(acks, start.Add(time.Duration(ttl)*time.Second))
	return k, nil
}

func (k *keeper) run(acks <-chan *clientv3.LeaseKeepAliveResponse, deadline time.Time) {
	defer close(k.done)
	defer k.stop()
	expire := time.NewTimer(time.Until(deadline))
	defer expire.Stop()
	for {
		select {
		case resp, ok := <-acks:
			if !ok {
				return // ended: Stop, the lease is gone, or the client closed
			}
			expire.Reset(time.Duration(resp.TTL) * time.Second)
		case <-expire.C:
			return // no renewal confirmed for a whole TTL
		}
	}
}

// Done is closed when the lease may have expired or the keeper stopped.
func (k *keeper) Done() <-chan struct{} { return k.done }

// Stop ends the renewals and waits for the keeper's goroutine.
func (k *keeper) Stop() {
	k.stop()
	<-k.done
}

// session returns a concurrency.Session on the keeper's lease, for the
// recipes built on concurrency.Mutex. It renews the same lease and stops
// when the keeper does.
func (k *keeper) session() (*concurrency.Session, error) {
	return concurrency.NewSession(k.cli,
		concurrency.WithLease(k.id), concurrency.WithTTL(k.ttl), concurrency.WithContext(k.ctx))
}

// abandon stops a keeper whose Lock failed and revokes its lease, which
// deletes any key the attempt left.
func (k *keeper) abandon(ctx context.Context) {
	k.Stop()
	revokeQuietly(ctx, k.cli, k.id, k.ttl)
}

// grantLease grants a lease of ttl seconds and checks the cluster did not
// raise it to its own minimum.
func grantLease(ctx context.Context, cli *clientv3.Client, pfx string, ttl int) (clientv3.LeaseID, error) {
	resp, err := cli.Grant(ctx, int64(ttl))
	if err != nil {
		return 0, fmt.Errorf("lock: %s: grant lease: %w", pfx, err)
	}
	if resp.TTL > int64(ttl) {
		revokeQuietly(ctx, cli, resp.ID, ttl)
		return 0, fmt.Errorf("%w: lock %s: TTL %d s, the cluster's minimum is %d s", ErrTTL, pfx, ttl, resp.TTL)
	}
	return resp.ID, nil
}

// revokeQuietly revokes a lease that a failed Lock leaves behind. It runs
// even when ctx has ended, for at most ttl: after that the lease has
// expired anyway. Its error is dropped because the caller is already
// returning the error that made it give up.
func revokeQuietly(ctx context.Context, cli *clientv3.Client, id clientv3.LeaseID, ttl int) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Duration(ttl)*time.Second)
	defer cancel()
	cli.Revoke(rctx, id) //nolint:errcheck // best effort, see above
}

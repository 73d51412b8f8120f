package lease_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/internal/patience"
	"github.com/etcdsim/etcdsim/lease"
)

// The examples run a cluster on the real clock: an Example has no
// *testing.T, so it cannot enter a synctest bubble. So that a slow machine
// changes only how long they take, never what they print, their deadlines
// stretch with the machine's load (patience.Scale), their leases are long
// enough that a guard on a loaded machine still renews in time, they wait
// for events rather than for time to pass, and they print only what the
// API promises.

// A worker announces itself under a lease and works until the lease may
// be gone. An operator revokes the lease; the worker's guard notices at
// its next renewal and says why.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), patience.Scale(time.Minute))
	defer cancel()
	c, err := cluster.Start(ctx, cluster.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	worker, _ := c.Client("worker")
	operator, _ := c.Client("operator")

	_, err = lease.Grant(ctx, worker, 1500*time.Millisecond)
	fmt.Println(err)

	g, err := lease.Grant(ctx, worker, 5*time.Second)
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close(ctx)
	fmt.Println("alive:", g.Alive())
	if _, err := worker.Put(ctx, "/workers/w1", "busy", clientv3.WithLease(g.ID())); err != nil {
		log.Fatal(err)
	}

	if _, err := operator.Revoke(ctx, g.ID()); err != nil {
		log.Fatal(err)
	}
	select {
	case <-g.Done(): // stop working
	case <-ctx.Done():
		log.Fatal("the guard did not notice")
	}
	// Usually the renewal found the lease gone (the error then wraps
	// rpctypes.ErrLeaseNotFound too); on a machine too slow to renew in
	// time the guard gives up first. Either way it is lost.
	fmt.Println("lost:", errors.Is(g.Err(), lease.ErrLost))
	fmt.Println("close:", g.Close(ctx)) // a lease already gone is no error
	// Output:
	// lease: bad TTL: 1.5s is not a whole number of seconds, which is what etcd grants: use 1s or 2s
	// alive: true
	// lost: true
	// close: <nil>
}

// A user's own lock, built on the guard: one key, created only if it is
// absent, on the holder's guarded lease. The holder holds the lock while its
// guard's Done is open, and its token is the key's create revision; Unlock
// closes the guard, whose revoke deletes the key. Nothing here trusts
// concurrency.Session.Done.
type ownLock struct {
	cli *clientv3.Client
	key string
}

// ownHolder is one holder of an ownLock.
type ownHolder struct {
	g     *lease.Guard
	token int64
}

// Lock waits until the key is free, then takes it on a lease of its own.
func (l ownLock) Lock(ctx context.Context) (*ownHolder, error) {
	g, err := lease.Grant(ctx, l.cli, 5*time.Second)
	if err != nil {
		return nil, err
	}
	for {
		resp, err := l.cli.Txn(ctx).
			If(clientv3.Compare(clientv3.CreateRevision(l.key), "=", 0)).
			Then(clientv3.OpPut(l.key, "", clientv3.WithLease(g.ID()))).
			Commit()
		if err == nil && resp.Succeeded {
			return &ownHolder{g: g, token: resp.Header.Revision}, nil
		}
		if err == nil {
			err = l.waitDeleted(ctx, g, resp.Header.Revision)
		}
		if err != nil {
			g.Close(context.WithoutCancel(ctx)) // a waiter that gives up leaves nothing behind
			return nil, err
		}
	}
}

// waitDeleted waits for the key to be deleted after revision rev, for ctx
// to end, or for the waiter's own lease to be lost.
func (l ownLock) waitDeleted(ctx context.Context, g *lease.Guard, rev int64) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events := l.cli.Watch(wctx, l.key, clientv3.WithRev(rev+1), clientv3.WithFilterPut())
	for {
		select {
		case wr, ok := <-events:
			if !ok || wr.Err() != nil || len(wr.Events) > 0 {
				return ctx.Err() // try again, unless ctx ended
			}
		case <-g.Done():
			return g.Err()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Held reports whether the holder may still act: its guard's Done is open.
func (h *ownHolder) Held() bool { return h.g.Alive() }

// Unlock revokes the holder's lease, which deletes its key at once.
func (h *ownHolder) Unlock(ctx context.Context) error { return h.g.Close(ctx) }

// Alice takes the lock; Bob waits in vain. An operator revokes Alice's
// lease, as a fault would: her guard tells her she lost the lock, and Bob
// gets it with a higher fencing token.
func Example_lock() {
	ctx, cancel := context.WithTimeout(context.Background(), patience.Scale(time.Minute))
	defer cancel()
	c, err := cluster.Start(ctx, cluster.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	alice, _ := c.Client("alice")
	bob, _ := c.Client("bob")
	operator, _ := c.Client("operator")

	a, err := ownLock{cli: alice, key: "/locks/jobs"}.Lock(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("alice holds:", a.Held())

	// Bob tries for a moment. However far he gets in it on a slow
	// machine, he must not get the lock.
	wait, stop := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err = ownLock{cli: bob, key: "/locks/jobs"}.Lock(wait)
	stop()
	fmt.Println("bob gets it while alice holds:", err == nil)

	if _, err := operator.Revoke(ctx, a.g.ID()); err != nil {
		log.Fatal(err)
	}
	<-a.g.Done() // at alice's next renewal, a quarter TTL at most
	fmt.Println("alice holds:", a.Held(), "- lease lost:", errors.Is(a.g.Err(), lease.ErrLost))

	b, err := ownLock{cli: bob, key: "/locks/jobs"}.Lock(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("bob holds:", b.Held(), "with a higher token:", b.token > a.token)
	fmt.Println("bob unlocks:", b.Unlock(ctx), "alice's unlock:", a.Unlock(ctx))
	// Output:
	// alice holds: true
	// bob gets it while alice holds: false
	// alice holds: false - lease lost: true
	// bob holds: true with a higher token: true
	// bob unlocks: <nil> alice's unlock: <nil>
}

package scenarios

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
	"go.etcd.io/etcd/client/v3/leasing"
)

// guardedLeasing is etcd's leasing KV used so that its cached reads stay
// linearizable: the fix for etcd #19091. The leasing KV serves a cached
// key for as long as its session looks alive to the client, and the
// client's lease library notices an expired lease only when its own
// deadline — set when a keepalive's answer arrives, and checked once a
// second — has passed; by then the server may have let the lease go and
// another client may have written the key.
//
// The guard grants the lease the leasing KV's session runs on, and keeps
// it alive itself with KeepAliveOnce every third of the TTL. A keepalive
// sent at t and answered renewed the lease at t or later, so the lease
// lives at least until t + TTL: the guard serves a read from the leasing
// KV (and so perhaps from its cache) only before that instant, and
// otherwise reads from the cluster, linearizably. The runs share one
// clock, so no margin for drift is taken; across machines one would be.
// When the lease is found gone, the guard closes the leasing KV and
// starts another on a new lease. Puts and deletes go as one-operation
// transactions (txnWrites).
type guardedLeasing struct {
	cli *clientv3.Client
	ttl time.Duration

	life   context.Context // the guard's lifetime: ends at Close
	cancel context.CancelFunc
	done   chan struct{}  // closed when the keepalive loop has returned
	reads  sync.WaitGroup // reads through the leasing KV still running

	mu         sync.Mutex // guards the fields below
	kv         clientv3.KV
	closeKV    func()
	lease      clientv3.LeaseID
	validUntil time.Time // the lease lives at least until then
}

// errNoLeasingKV is what a write returns while the guard has no leasing
// KV: its lease expired and a new one could not be granted yet.
var errNoLeasingKV = errors.New("scenarios: no leasing KV: its lease expired and no new one could be granted yet")

// newGuardedLeasing starts a guarded leasing KV over cli, with a lease of
// ttl seconds.
func newGuardedLeasing(ctx context.Context, cli *clientv3.Client, ttl int) (*guardedLeasing, error) {
	if ttl < 1 {
		return nil, fmt.Errorf("scenarios: a guarded leasing KV needs a TTL of at least 1s, got %ds", ttl)
	}
	lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	g := &guardedLeasing{cli: cli, ttl: time.Duration(ttl) * time.Second, life: lctx, cancel: cancel, done: make(chan struct{})}
	if err := g.restart(ctx); err != nil {
		cancel()
		close(g.done)
		return nil, err
	}
	go g.keepAlive(lctx)
	return g, nil
}

// restart closes the leasing KV, if any, grants a new lease and starts a
// leasing KV on it.
func (g *guardedLeasing) restart(ctx context.Context) error {
	g.mu.Lock()
	old := g.closeKV
	g.kv, g.closeKV, g.lease, g.validUntil = nil, nil, 0, time.Time{}
	g.mu.Unlock()
	if old != nil {
		old()
	}
	sent := time.Now()
	gctx, cancel := context.WithTimeout(ctx, g.ttl)
	grant, err := g.cli.Grant(gctx, int64(g.ttl/time.Second))
	cancel()
	if err != nil {
		return fmt.Errorf("scenarios: a guarded leasing KV: grant a lease: %w", err)
	}
	kv, closeKV, err := leasing.NewKV(g.cli, leasingPrefix, concurrency.WithLease(grant.ID))
	if err != nil {
		return fmt.Errorf("scenarios: a guarded leasing KV: %w", err)
	}
	g.mu.Lock()
	g.kv, g.closeKV, g.lease = txnWrites{kv}, closeKV, grant.ID
	g.validUntil = sent.Add(time.Duration(grant.TTL) * time.Second)
	g.mu.Unlock()
	return nil
}

// keepAlive renews the lease every third of the TTL, moving validUntil
// on with each answer, and starts over on a new lease when etcd says the
// lease is gone.
func (g *guardedLeasing) keepAlive(ctx context.Context) {
	defer close(g.done)
	t := time.NewTicker(g.ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		g.mu.Lock()
		id := g.lease
		g.mu.Unlock()
		if id == 0 {
			g.restart(ctx) //nolint:errcheck // no lease yet: tried again on the next tick
			continue
		}
		sent := time.Now()
		kctx, cancel := context.WithTimeout(ctx, g.ttl/3)
		resp, err := g.cli.KeepAliveOnce(kctx, id)
		cancel()
		switch {
		case errors.Is(err, rpctypes.ErrLeaseNotFound):
			g.restart(ctx) //nolint:errcheck // tried again on the next tick
		case err == nil && resp.TTL > 0:
			g.mu.Lock()
			if g.lease == id {
				g.validUntil = sent.Add(time.Duration(resp.TTL) * time.Second)
			}
			g.mu.Unlock()
		}
	}
}

// current returns the leasing KV and whether its lease is known to be
// alive now.
func (g *guardedLeasing) current() (clientv3.KV, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.kv, g.kv != nil && time.Now().Before(g.validUntil)
}

// writer returns the leasing KV for a write, or errNoLeasingKV: a write
// that bypassed the leasing KV would leave other clients' caches stale.
func (g *guardedLeasing) writer() (clientv3.KV, error) {
	kv, _ := g.current()
	if kv == nil {
		return nil, errNoLeasingKV
	}
	return kv, nil
}

// Get reads through the leasing KV while its lease is known alive, and
// from the cluster otherwise.
//
// A read through the leasing KV runs under the guard's lifetime, not the
// caller's context, which bounds only the wait: the leasing KV watches
// the lease of a key it has just taken under the context of the read
// that took it, and when that watch ends (its revision compacted, say) it
// reads the lease key again with that context in a loop that, on etcd
// v3.7.3, spins without pause once the context has ended.
func (g *guardedLeasing) Get(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.GetResponse, error) {
	kv, fresh := g.current()
	if !fresh {
		return g.cli.Get(ctx, key, opts...)
	}
	type answer struct {
		resp *clientv3.GetResponse
		err  error
	}
	ch := make(chan answer, 1)
	g.reads.Add(1)
	go func() {
		defer g.reads.Done()
		resp, err := kv.Get(g.life, key, opts...)
		ch <- answer{resp, err}
	}()
	select {
	case a := <-ch:
		return a.resp, a.err
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

func (g *guardedLeasing) Put(ctx context.Context, key, val string, opts ...clientv3.OpOption) (*clientv3.PutResponse, error) {
	kv, err := g.writer()
	if err != nil {
		return nil, err
	}
	return kv.Put(ctx, key, val, opts...)
}

func (g *guardedLeasing) Delete(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.DeleteResponse, error) {
	kv, err := g.writer()
	if err != nil {
		return nil, err
	}
	return kv.Delete(ctx, key, opts...)
}

// Txn runs through the leasing KV, which answers a transaction from its
// cache only when it only reads; while the lease is not known alive, a
// transaction goes to the cluster through the leasing KV's server path,
// which revokes other clients' leases on the keys it writes.
func (g *guardedLeasing) Txn(ctx context.Context) clientv3.Txn {
	kv, _ := g.current()
	if kv == nil {
		return failedTxn{errNoLeasingKV}
	}
	return kv.Txn(ctx)
}

func (g *guardedLeasing) GetStream(ctx context.Context, key string, opts ...clientv3.OpOption) (clientv3.GetStreamChan, error) {
	return g.cli.GetStream(ctx, key, opts...)
}

func (g *guardedLeasing) Compact(ctx context.Context, rev int64, opts ...clientv3.CompactOption) (*clientv3.CompactResponse, error) {
	return g.cli.Compact(ctx, rev, opts...)
}

func (g *guardedLeasing) Do(ctx context.Context, op clientv3.Op) (clientv3.OpResponse, error) {
	if op.IsGet() {
		if kv, fresh := g.current(); fresh {
			return kv.Do(ctx, op)
		}
		return g.cli.Do(ctx, op)
	}
	kv, err := g.writer()
	if err != nil {
		return clientv3.OpResponse{}, err
	}
	return txnWrites{kv}.Do(ctx, op)
}

// Close stops the keepalives and closes the leasing KV; it waits for
// both. It is idempotent.
func (g *guardedLeasing) Close() {
	g.cancel()
	<-g.done
	g.reads.Wait()
	g.mu.Lock()
	closeKV := g.closeKV
	g.kv, g.closeKV = nil, nil
	g.mu.Unlock()
	if closeKV != nil {
		closeKV()
	}
}

// failedTxn is a transaction that fails on Commit with err.
type failedTxn struct{ err error }

func (t failedTxn) If(...clientv3.Cmp) clientv3.Txn        { return t }
func (t failedTxn) Then(...clientv3.Op) clientv3.Txn       { return t }
func (t failedTxn) Else(...clientv3.Op) clientv3.Txn       { return t }
func (t failedTxn) Commit() (*clientv3.TxnResponse, error) { return nil, t.err }

package register

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
	"go.etcd.io/etcd/client/v3/leasing"

	"github.com/etcdsim/etcdsim/lease"
)

// guarded is etcd's leasing KV used so that its cached reads stay
// linearizable: the fix for etcd #19091. The leasing KV serves a cached
// key for as long as its session looks alive to the client, and the
// client's lease library notices an expired lease only when its own
// deadline — set when a keepalive's answer arrives, and checked once a
// second — has passed; by then the server may have let the lease go and
// another client may have written the key.
//
// The leasing KV runs on the lease of a lease.Guard, the guard every
// recipe shares, which knows by its own clock until when the lease is
// certainly alive on the cluster (see lease.Guard for the argument). A
// read goes through the leasing KV, and so perhaps to its cache, only
// while the guard is alive; otherwise it reads from the cluster,
// linearizably. When the guard's Done closes the KV is closed and
// another started on a new guard. Puts and deletes go as one-operation
// transactions (txnWrites).
type guarded struct {
	cli *clientv3.Client
	ttl time.Duration

	life   context.Context // the KV's lifetime: ends at Close
	cancel context.CancelFunc
	done   chan struct{}  // closed when the renewing loop has returned
	reads  sync.WaitGroup // reads through the leasing KV still running

	mu      sync.Mutex // guards the fields below
	kv      clientv3.KV
	closeKV func()
	guard   *lease.Guard
	closed  bool
}

// errNoLeasingKV is what a write returns while the KV has no leasing KV:
// its lease may be gone and no new one could be granted yet.
var errNoLeasingKV = errors.New("register: no leasing KV: its lease may be gone and no new one could be granted yet")

func newGuarded(ctx context.Context, cli *clientv3.Client, ttl time.Duration) (clientv3.KV, error) {
	if err := lease.CheckTTL(ttl); err != nil {
		return nil, fmt.Errorf("register: a guarded leasing KV: %w", err)
	}
	lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	g := &guarded{cli: cli, ttl: ttl, life: lctx, cancel: cancel, done: make(chan struct{})}
	if err := g.start(ctx); err != nil {
		cancel()
		close(g.done)
		return nil, err
	}
	go g.renew(lctx)
	return g, nil
}

// start grants a guarded lease and starts a leasing KV on it.
func (g *guarded) start(ctx context.Context) error {
	gctx, cancel := context.WithTimeout(ctx, g.ttl)
	defer cancel()
	guard, err := lease.Grant(gctx, g.cli, g.ttl)
	if err != nil {
		return fmt.Errorf("register: a guarded leasing KV: %w", err)
	}
	kv, closeKV, err := leasing.NewKV(g.cli, LeasingPrefix, concurrency.WithLease(guard.ID()))
	if err != nil {
		guard.Close(ctx) //nolint:errcheck // the error that matters is the leasing KV's
		return fmt.Errorf("register: a guarded leasing KV: %w", err)
	}
	g.mu.Lock()
	g.kv, g.closeKV, g.guard = txnWrites{kv}, closeKV, guard
	g.mu.Unlock()
	return nil
}

// stop closes the leasing KV and its guard, which revokes the lease.
func (g *guarded) stop(ctx context.Context) {
	g.mu.Lock()
	closeKV, guard := g.closeKV, g.guard
	g.kv, g.closeKV, g.guard = nil, nil, nil
	g.mu.Unlock()
	if closeKV != nil {
		closeKV()
	}
	if guard != nil {
		guard.Close(ctx) //nolint:errcheck // a lease that could not be revoked expires on its own
	}
}

// renew waits for the guard's Done and then starts over on a new lease,
// trying every third of the TTL until a grant succeeds.
func (g *guarded) renew(ctx context.Context) {
	defer close(g.done)
	for {
		g.mu.Lock()
		guard := g.guard
		g.mu.Unlock()
		if guard != nil {
			select {
			case <-ctx.Done():
				return
			case <-guard.Done():
			}
			g.stop(ctx)
		}
		if g.start(ctx) == nil {
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(g.ttl / 3):
		}
	}
}

// current returns the leasing KV and whether its lease is known to be
// alive now.
func (g *guarded) current() (clientv3.KV, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.kv, g.kv != nil && g.guard.Alive()
}

// writer returns the leasing KV for a write, or errNoLeasingKV: a write
// that bypassed the leasing KV would leave other clients' caches stale.
func (g *guarded) writer() (clientv3.KV, error) {
	kv, _ := g.current()
	if kv == nil {
		return nil, errNoLeasingKV
	}
	return kv, nil
}

// Get reads through the leasing KV while its lease is known alive, and
// from the cluster otherwise.
//
// A read through the leasing KV runs under the KV's lifetime, not the
// caller's context, which bounds only the wait: the leasing KV watches
// the lease of a key it has just taken under the context of the read
// that took it, and when that watch ends (its revision compacted, say) it
// reads the lease key again with that context in a loop that, on etcd
// v3.7.3, spins without pause once the context has ended.
func (g *guarded) Get(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.GetResponse, error) {
	g.mu.Lock()
	kv, fresh := g.kv, g.kv != nil && g.guard.Alive()
	if fresh {
		g.reads.Add(1)
	}
	g.mu.Unlock()
	if !fresh {
		return g.cli.Get(ctx, key, opts...)
	}
	type answer struct {
		resp *clientv3.GetResponse
		err  error
	}
	ch := make(chan answer, 1)
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

func (g *guarded) Put(ctx context.Context, key, val string, opts ...clientv3.OpOption) (*clientv3.PutResponse, error) {
	kv, err := g.writer()
	if err != nil {
		return nil, err
	}
	return kv.Put(ctx, key, val, opts...)
}

func (g *guarded) Delete(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.DeleteResponse, error) {
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
func (g *guarded) Txn(ctx context.Context) clientv3.Txn {
	kv, _ := g.current()
	if kv == nil {
		return failedTxn{errNoLeasingKV}
	}
	return kv.Txn(ctx)
}

func (g *guarded) GetStream(ctx context.Context, key string, opts ...clientv3.OpOption) (clientv3.GetStreamChan, error) {
	return g.cli.GetStream(ctx, key, opts...)
}

func (g *guarded) Compact(ctx context.Context, rev int64, opts ...clientv3.CompactOption) (*clientv3.CompactResponse, error) {
	return g.cli.Compact(ctx, rev, opts...)
}

func (g *guarded) Do(ctx context.Context, op clientv3.Op) (clientv3.OpResponse, error) {
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
	return kv.Do(ctx, op)
}

// Close stops renewing, waits for the reads under way, closes the leasing
// KV and revokes its lease. It is idempotent.
func (g *guarded) Close() error {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return nil
	}
	g.closed = true
	g.mu.Unlock()
	g.cancel()
	<-g.done
	g.reads.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), g.ttl)
	defer cancel()
	g.stop(ctx)
	return nil
}

// failedTxn is a transaction that fails on Commit with err.
type failedTxn struct{ err error }

func (t failedTxn) If(...clientv3.Cmp) clientv3.Txn        { return t }
func (t failedTxn) Then(...clientv3.Op) clientv3.Txn       { return t }
func (t failedTxn) Else(...clientv3.Op) clientv3.Txn       { return t }
func (t failedTxn) Commit() (*clientv3.TxnResponse, error) { return nil, t.err }

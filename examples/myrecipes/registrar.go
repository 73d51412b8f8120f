package myrecipes

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/discovery"
	"github.com/etcdsim/etcdsim/lease"
)

// A registrar names its lease, so that faults aimed at it find it.
var _ discovery.Leaser = (*registrar)(nil)

// registrar keeps "<service>/<addr>" registered with a record of its own
// format (record.go; etcdsim's resolvers read it through DecodeRecord) on
// a lease kept by a lease.Guard. When the guard says the lease may be gone — revoked,
// expired while the process was cut off, renewals unanswered — it grants a
// new lease and registers again, until Close.
type registrar struct {
	cli *clientv3.Client
	key string
	rec string // the record put at key
	ttl time.Duration

	ctx    context.Context // ends on Close
	cancel context.CancelFunc
	done   chan struct{} // closed when keep returns, or by Close if keep never ran
	wg     sync.WaitGroup

	mu         sync.Mutex   // guards g, registered, keeping and closed; held while adding to wg
	g          *lease.Guard // the lease the key was last put on; nil before
	registered bool         // Register was called and has not failed
	keeping    bool         // keep runs, and closes done when it returns
	closed     bool

	closeOnce sync.Once
	closeErr  error // what Close returns, written inside closeOnce
}

// NewRegistrar returns a registrar of the instance at addr of service.
// Options.TTL 0 means discovery.DefaultTTL.
func NewRegistrar(cli *clientv3.Client, service, addr string, opts discovery.Options) (discovery.Registrar, error) {
	switch {
	case cli == nil:
		return nil, fmt.Errorf("myrecipes: registrar of %s: nil client", service)
	case service == "":
		return nil, discovery.ErrBadService
	case addr == "":
		return nil, fmt.Errorf("%w for %s", discovery.ErrBadAddr, service)
	}
	if opts.TTL == 0 {
		opts.TTL = discovery.DefaultTTL
	}
	if err := lease.CheckTTL(opts.TTL); err != nil {
		return nil, fmt.Errorf("%w: %w", discovery.ErrBadTTL, err)
	}
	r := &registrar{cli: cli, key: service + "/" + addr, rec: encodeRecord(addr), ttl: opts.TTL, done: make(chan struct{})}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	return r, nil
}

func (r *registrar) Key() string           { return r.key }
func (r *registrar) Done() <-chan struct{} { return r.done }

// Lease is the lease the key was last put on, 0 before Register.
func (r *registrar) Lease() clientv3.LeaseID {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.g == nil {
		return 0
	}
	return r.g.ID()
}

// Register puts the key once, then keeps it registered in the background.
func (r *registrar) Register(ctx context.Context) error {
	r.mu.Lock()
	switch {
	case r.closed:
		r.mu.Unlock()
		return fmt.Errorf("%w: %s", discovery.ErrClosed, r.key)
	case r.registered:
		r.mu.Unlock()
		return fmt.Errorf("%w: %s", discovery.ErrRegistered, r.key)
	}
	r.registered = true
	r.wg.Add(1)
	r.mu.Unlock()
	defer r.wg.Done()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(r.ctx, cancel)() // Close cancels a Register under way
	g, err := r.put(ctx)

	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.registered = false
		return err
	}
	r.g = g // if Close waits for us, it deregisters
	if r.closed {
		return fmt.Errorf("%w while registering %s", discovery.ErrClosed, r.key)
	}
	r.keeping = true
	r.wg.Add(1)
	go r.keep(g)
	return nil
}

// put grants a lease and puts the key on it.
func (r *registrar) put(ctx context.Context) (*lease.Guard, error) {
	g, err := lease.Grant(ctx, r.cli, r.ttl)
	if err != nil {
		if errors.Is(err, lease.ErrBadTTL) {
			err = fmt.Errorf("%w: %w", discovery.ErrBadTTL, err)
		}
		return nil, fmt.Errorf("myrecipes: register %s: %w", r.key, err)
	}
	if _, err := r.cli.Put(ctx, r.key, r.rec, clientv3.WithLease(g.ID())); err != nil {
		return nil, errors.Join(fmt.Errorf("myrecipes: register %s: %w", r.key, err), g.Close(context.WithoutCancel(ctx)))
	}
	return g, nil
}

// keep registers again each time the lease may be lost, until Close.
func (r *registrar) keep(g *lease.Guard) {
	defer r.wg.Done()
	defer close(r.done)
	for {
		select {
		case <-r.ctx.Done():
			return
		case <-g.Done():
		}
		for r.ctx.Err() == nil {
			// Bounded by the TTL: a request lost on a cut link is never
			// answered, and a lease granted a TTL ago is no use.
			ctx, cancel := context.WithTimeout(r.ctx, r.ttl)
			ng, err := r.put(ctx)
			cancel()
			if err == nil {
				r.mu.Lock()
				old := r.g
				r.g, g = ng, ng
				r.mu.Unlock()
				old.Close(context.WithoutCancel(r.ctx)) //nolint:errcheck // best effort: it is no longer renewed anyway
				break
			}
			select {
			case <-r.ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
}

// Close stops keeping the key, deletes it and revokes its lease. It is
// idempotent: every call returns the first one's result.
func (r *registrar) Close() error {
	r.closeOnce.Do(func() { r.closeErr = r.close() })
	return r.closeErr
}

func (r *registrar) close() error {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.cancel()
	r.wg.Wait()
	r.mu.Lock()
	g, keeping := r.g, r.keeping
	r.mu.Unlock()
	if !keeping {
		close(r.done)
	}
	if g == nil {
		return nil // never registered
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.ttl)
	defer cancel()
	_, err := r.cli.Delete(ctx, r.key)
	if err != nil {
		err = fmt.Errorf("myrecipes: deregister %s: %w", r.key, err)
	}
	return errors.Join(err, g.Close(ctx))
}

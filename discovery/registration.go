package discovery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/naming/endpoints"

	"github.com/etcdsim/etcdsim/lease"
)

// registration is what every registrar recipe shares: the key, the lease
// guard it is on, and the life cycle. A recipe differs only in what its
// keeper does once the instance is registered.
type registration struct {
	cli  *clientv3.Client
	em   endpoints.Manager
	key  string
	addr string
	opts Options

	ctx    context.Context // ends on Close
	cancel context.CancelFunc
	done   chan struct{} // closed when the recipe stops keeping the key
	wg     sync.WaitGroup

	mu         sync.Mutex   // guards guard, registered, keeping and closed; held while adding to wg
	guard      *lease.Guard // keeps the lease the key is on now; nil before the first registration
	registered bool         // Register was called and has not failed
	keeping    bool         // a keeper goroutine runs, and closes done when it returns
	closed     bool
}

func newRegistration(cli *clientv3.Client, service, addr string, opts Options) (*registration, error) {
	opts, err := checkRegistrar(cli, service, addr, opts)
	if err != nil {
		return nil, err
	}
	em, err := endpoints.NewManager(cli, service)
	if err != nil {
		return nil, fmt.Errorf("discovery: endpoints manager for %s: %w", service, err)
	}
	r := &registration{cli: cli, em: em, key: service + "/" + addr, addr: addr, opts: opts, done: make(chan struct{})}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	return r, nil
}

// checkRegistrar checks what every registrar constructor is given, and
// returns opts with its defaults.
func checkRegistrar(cli *clientv3.Client, service, addr string, opts Options) (Options, error) {
	switch {
	case cli == nil:
		return opts, errors.New("discovery: nil client")
	case service == "":
		return opts, ErrBadService
	case addr == "":
		return opts, fmt.Errorf("%w for service %s", ErrBadAddr, service)
	}
	return opts.check()
}

func (r *registration) Key() string           { return r.key }
func (r *registration) Done() <-chan struct{} { return r.done }

// Lease is the lease the instance's key was last put on: the first
// registration's, or the one it registered again on. It is 0 before the
// first registration. Scenarios read it to aim faults at the lease.
func (r *registration) Lease() clientv3.LeaseID {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.guard == nil {
		return 0
	}
	return r.guard.ID()
}

// register is the first registration, refused if there was one or after
// Close. Once the instance is on a guarded lease it runs keep in a
// goroutine of its own, given the guard and the revision of the put, and
// closes done when keep returns. keep must return once r.ctx ends. A Close
// meanwhile cancels the registration and waits for it.
func (r *registration) register(ctx context.Context, keep func(g *lease.Guard, rev int64)) error {
	r.mu.Lock()
	switch {
	case r.closed:
		r.mu.Unlock()
		return ErrClosed
	case r.registered:
		r.mu.Unlock()
		return fmt.Errorf("%w: %s", ErrRegistered, r.key)
	}
	r.registered = true
	r.wg.Add(1) // Close waits for this registration
	r.mu.Unlock()
	defer r.wg.Done()

	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(r.ctx, cancel)()
	g, rev, err := r.put(pctx, true)

	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case err != nil:
		r.registered = false
		return err
	case r.closed:
		r.guard = g // Close, waiting for us, removes it
		return fmt.Errorf("%w while registering %s", ErrClosed, r.key)
	}
	r.guard = g
	r.keeping = true
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer close(r.done)
		keep(g, rev)
	}()
	return nil
}

// put grants a lease, keeps it with a guard, and writes the instance's
// record on it, the record etcd's endpoints manager writes. It returns the
// guard and the revision of the write, which the write's own response
// gives: no read back, which could fail after the write took and undo a
// registration that stood. If the grant or the write fails, put lets the
// lease go: it revokes it when revoke is set, and otherwise stops renewing
// it, so that it expires within the TTL. A write whose outcome is unknown
// may have moved a registration that stood onto the new lease; revoking
// it then deletes the key, which a first registration that failed may
// do, and registering again must not.
func (r *registration) put(ctx context.Context, revoke bool) (*lease.Guard, int64, error) {
	g, err := lease.Grant(ctx, r.cli, r.opts.TTL)
	switch {
	case errors.Is(err, lease.ErrBadTTL):
		return nil, 0, fmt.Errorf("%w for %s: %w", ErrBadTTL, r.key, err)
	case err != nil:
		return nil, 0, fmt.Errorf("discovery: register %s: %w", r.key, err)
	}
	value, err := json.Marshal(record{Addr: r.addr})
	if err != nil {
		return nil, 0, errors.Join(fmt.Errorf("discovery: register %s: %w", r.key, err), g.Close(context.WithoutCancel(ctx)))
	}
	resp, err := r.cli.Txn(ctx).Then(clientv3.OpPut(r.key, string(value), clientv3.WithLease(g.ID()))).Commit()
	if err != nil {
		err = fmt.Errorf("discovery: register %s: %w", r.key, err)
		if !revoke {
			g.Stop()
			return nil, 0, err
		}
		return nil, 0, errors.Join(err, g.Close(context.WithoutCancel(ctx)))
	}
	return g, resp.Header.Revision, nil
}

// replace makes g the guard of the registration, after a registration
// again on a new lease, and returns the one it replaces.
func (r *registration) replace(g *lease.Guard) (old *lease.Guard) {
	r.mu.Lock()
	defer r.mu.Unlock()
	old, r.guard = r.guard, g
	return old
}

// Close stops the recipe, then deletes the key and revokes its lease.
func (r *registration) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	r.mu.Unlock()
	r.cancel()
	r.wg.Wait()
	r.mu.Lock()
	g, keeping := r.guard, r.keeping
	r.mu.Unlock()
	if !keeping {
		close(r.done)
	}
	if g == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.opts.TTL)
	defer cancel()
	var errs []error
	if err := r.em.DeleteEndpoint(ctx, r.key); err != nil {
		errs = append(errs, fmt.Errorf("discovery: deregister %s: %w", r.key, err))
	}
	if err := g.Close(ctx); err != nil {
		errs = append(errs, fmt.Errorf("discovery: deregister %s: %w", r.key, err))
	}
	return errors.Join(errs...)
}

// pause waits for d or until ctx ends.
func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// retryPause is how long recipes wait before trying again after a failure.
const retryPause = 100 * time.Millisecond

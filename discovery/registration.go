package discovery

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/naming/endpoints"
)

// registration is what every registrar recipe shares: the key, the lease
// it is on, and the life cycle.
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

	mu         sync.Mutex // guards lease, registered and closed
	lease      clientv3.LeaseID
	registered bool
	closed     bool
}

func newRegistration(cli *clientv3.Client, service, addr string, opts Options) (*registration, error) {
	switch {
	case cli == nil:
		return nil, errors.New("discovery: nil client")
	case service == "":
		return nil, ErrBadService
	case addr == "":
		return nil, fmt.Errorf("%w for service %s", ErrBadAddr, service)
	}
	opts, err := opts.check()
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

func (r *registration) Key() string           { return r.key }
func (r *registration) Done() <-chan struct{} { return r.done }

// start is the first registration, refused if there was one or after Close.
func (r *registration) start(ctx context.Context) (clientv3.LeaseID, int64, error) {
	r.mu.Lock()
	switch {
	case r.closed:
		r.mu.Unlock()
		return 0, 0, ErrClosed
	case r.registered:
		r.mu.Unlock()
		return 0, 0, fmt.Errorf("%w: %s", ErrRegistered, r.key)
	}
	r.registered = true
	r.mu.Unlock()
	id, rev, err := r.put(ctx)
	if err != nil {
		r.mu.Lock()
		r.registered = false
		r.mu.Unlock()
	}
	return id, rev, err
}

// put grants a lease and registers the instance on it. It returns the
// lease and the revision of the put.
func (r *registration) put(ctx context.Context) (clientv3.LeaseID, int64, error) {
	want := int64(r.opts.TTL / time.Second)
	lresp, err := r.cli.Grant(ctx, want)
	if err != nil {
		return 0, 0, fmt.Errorf("discovery: grant lease for %s: %w", r.key, err)
	}
	if lresp.TTL != want {
		r.revoke(lresp.ID)
		return 0, 0, fmt.Errorf("%w: asked for %ds, the cluster granted %ds (its minimum)", ErrBadTTL, want, lresp.TTL)
	}
	r.mu.Lock()
	r.lease = lresp.ID
	r.mu.Unlock()
	if err := r.em.AddEndpoint(ctx, r.key, endpoints.Endpoint{Addr: r.addr}, clientv3.WithLease(lresp.ID)); err != nil {
		r.revoke(lresp.ID)
		return 0, 0, fmt.Errorf("discovery: register %s: %w", r.key, err)
	}
	resp, err := r.cli.Get(ctx, r.key)
	if err != nil {
		return lresp.ID, 0, fmt.Errorf("discovery: read back %s: %w", r.key, err)
	}
	rev := resp.Header.Revision
	if len(resp.Kvs) > 0 {
		rev = resp.Kvs[0].ModRevision
	}
	return lresp.ID, rev, nil
}

// revoke revokes a lease, bounded by the TTL: after that it has expired.
func (r *registration) revoke(id clientv3.LeaseID) error {
	ctx, cancel := context.WithTimeout(context.Background(), r.opts.TTL)
	defer cancel()
	if _, err := r.cli.Revoke(ctx, id); err != nil && !errors.Is(err, rpctypes.ErrLeaseNotFound) {
		return fmt.Errorf("discovery: revoke lease %x of %s: %w", int64(id), r.key, err)
	}
	return nil
}

// Close stops the recipe, then deletes the key and revokes its lease.
func (r *registration) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	registered := r.registered
	r.mu.Unlock()
	r.cancel()
	r.wg.Wait()
	if !registered {
		close(r.done)
		return nil
	}
	r.mu.Lock()
	id := r.lease
	r.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), r.opts.TTL)
	defer cancel()
	var errs []error
	if err := r.em.DeleteEndpoint(ctx, r.key); err != nil {
		errs = append(errs, fmt.Errorf("discovery: deregister %s: %w", r.key, err))
	}
	errs = append(errs, r.revoke(id))
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

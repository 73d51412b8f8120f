package discovery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/lease"
)

// BROKEN (deliberately): a registrar that registers again under a new key
// whenever a renewal of its lease is slow, and leaves the old key behind.
// Its keys carry a registration number ("<service>/<addr>#<n>"), as
// registries whose keys carry an instance id or the lease do; it keeps
// each lease alive with clientv3's KeepAlive, and checks every third of
// the TTL with a KeepAliveOnce that it gives a quarter of the TTL. When
// that check fails — a slow link, a leader election — it takes the lease
// for lost, grants a new one and puts a new key. The lease was not lost:
// the KeepAlive of the old one, started under the registrar's own context,
// goes on renewing it, and the old key is never deleted. The registry
// holds two records of the instance from then on, and after every slow
// spell one more; a resolver counts the instance twice, and when the
// process moves, the old records still send callers to the old address.
// The pattern of registries that re-register on a heartbeat error
// (kratos's etcd registry keeps a lease per Register call).
//
// newRekey returns a Registrar that registers again under a new key on a
// failed check and leaves the old key behind.
func newRekey(cli *clientv3.Client, service, addr string, opts Options) (Registrar, error) {
	opts, err := checkRegistrar(cli, service, addr, opts)
	if err != nil {
		return nil, err
	}
	r := &rekey{cli: cli, service: service, addr: addr, ttl: opts.TTL, done: make(chan struct{})}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	return r, nil
}

type rekey struct {
	cli           *clientv3.Client
	service, addr string
	ttl           time.Duration
	ctx           context.Context // ends on Close: every keep-alive of every lease
	cancel        context.CancelFunc
	done          chan struct{}
	wg            sync.WaitGroup // the keep-alive drains and the checker

	mu         sync.Mutex // guards key, lease, n, registered and closed; held while adding to wg
	key        string
	lease      clientv3.LeaseID
	n          int
	registered bool
	closed     bool
}

func (r *rekey) Key() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.key
}

func (r *rekey) Lease() clientv3.LeaseID {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lease
}

func (r *rekey) Done() <-chan struct{} { return r.done }

// Register puts the first key and starts the checker.
func (r *rekey) Register(ctx context.Context) error {
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
	r.mu.Unlock()
	if err := r.put(ctx); err != nil {
		r.mu.Lock()
		r.registered = false
		r.mu.Unlock()
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ErrClosed
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		r.check()
	}()
	return nil
}

// put grants a lease, keeps it alive under the registrar's context, and
// writes the instance's record under the next key.
func (r *rekey) put(ctx context.Context) error {
	want := int64(r.ttl / time.Second)
	g, err := r.cli.Grant(ctx, want)
	if err != nil {
		return fmt.Errorf("discovery: register %s: %w", r.service, err)
	}
	if g.TTL != want { // etcd raised a TTL below its minimum
		r.cli.Revoke(context.WithoutCancel(ctx), g.ID) //nolint:errcheck // best effort: the error below is the news
		return fmt.Errorf("%w for %s: asked for %v, the cluster granted %ds: %w", ErrBadTTL, r.service, r.ttl, g.TTL, lease.ErrBadTTL)
	}
	r.mu.Lock()
	r.n++
	key := fmt.Sprintf("%s/%s#%d", r.service, r.addr, r.n)
	r.mu.Unlock()
	value, err := json.Marshal(record{Addr: r.addr})
	if err != nil {
		return fmt.Errorf("discovery: register %s: %w", key, err)
	}
	if _, err := r.cli.Put(ctx, key, string(value), clientv3.WithLease(g.ID)); err != nil {
		return fmt.Errorf("discovery: register %s: %w", key, err)
	}
	ch, err := r.cli.KeepAlive(r.ctx, g.ID)
	if err != nil {
		return fmt.Errorf("discovery: register %s: keep-alive: %w", key, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.key, r.lease = key, g.ID
	if r.closed {
		return ErrClosed
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		for range ch {
		}
	}()
	return nil
}

// check asks every third of the TTL whether the current lease lives, and
// on any failure registers again under a new key: the mistake, since a
// slow answer is no lost lease, and the old key stays.
func (r *rekey) check() {
	tick := time.NewTicker(r.ttl / 3)
	defer tick.Stop()
	for {
		select {
		case <-r.ctx.Done():
			return
		case <-tick.C:
		}
		cctx, cancel := context.WithTimeout(r.ctx, r.ttl/4)
		_, err := r.cli.KeepAliveOnce(cctx, r.Lease())
		cancel()
		for err != nil && r.ctx.Err() == nil {
			pctx, cancel := context.WithTimeout(r.ctx, r.ttl)
			err = r.put(pctx)
			cancel()
		}
	}
}

// Close stops every keep-alive, then deletes the current key and revokes
// its lease; the keys left behind expire a TTL later.
func (r *rekey) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	key, lease := r.key, r.lease
	r.mu.Unlock()
	r.cancel()
	r.wg.Wait()
	close(r.done)
	if lease == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.ttl)
	defer cancel()
	var errs []error
	if _, err := r.cli.Delete(ctx, key); err != nil {
		errs = append(errs, fmt.Errorf("discovery: deregister %s: %w", key, err))
	}
	if _, err := r.cli.Revoke(ctx, lease); err != nil && !errors.Is(err, rpctypes.ErrLeaseNotFound) {
		errs = append(errs, fmt.Errorf("discovery: deregister %s: %w", key, err))
	}
	return errors.Join(errs...)
}

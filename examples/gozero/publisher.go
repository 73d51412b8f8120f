package gozero

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"sync"
	"time"

	"github.com/zeromicro/go-zero/core/discov"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/discovery"
)

// publisher is go-zero's discov.Publisher as a discovery.Registrar, the
// way a zrpc server publishes itself: NewPublisher(endpoints, service,
// addr) and KeepAlive. go-zero dials etcd itself from the endpoints of the
// client it is given (on the real clock, the URLs that carry that
// client's traffic alone, so every fault aimed at the client reaches
// go-zero's connection). The key is go-zero's, "<service>/<lease in
// decimal>", and the value the bare address; once KeepAlive has
// returned, the registrar reads the key back with its own client to learn
// the key and lease, for faults aimed at the backend's lease.
type publisher struct {
	cli      *clientv3.Client // reads the key back; not go-zero's
	service  string
	addr     string
	ttl      time.Duration
	endpoint []string           // go-zero's etcd endpoints
	opts     []discov.PubOption // go-zero's options for each Publisher

	done      chan struct{} // closed by Close
	closeOnce sync.Once
	closeErr  error

	mu         sync.Mutex // guards p, key, lease, registered, closed, stopFollow and followed
	p          *discov.Publisher
	key        string
	lease      clientv3.LeaseID
	registered bool
	closed     bool
	stopFollow context.CancelFunc // ends follow, started once registered
	followed   chan struct{}      // closed when follow has returned
}

// A publisher names the lease its key is on.
var _ discovery.Leaser = (*publisher)(nil)

// NewPublisher returns a registrar of the instance at addr of service,
// published by go-zero through the endpoints cli dials. opts.TTL must be
// go-zero's lease TTL, the package variable discov.TimeToLive (seconds,
// 10 by default), which go-zero reads at every registration: 0 means
// discovery.DefaultTTL, 10s.
func NewPublisher(cli *clientv3.Client, service, addr string, opts discovery.Options) (discovery.Registrar, error) {
	return newPublisher(cli, service, addr, opts)
}

// NewPublisherWithID is NewPublisher with go-zero's discov.WithId, as a
// zrpc server whose configuration sets an ID publishes itself: the key is
// "<service>/<id>" whatever lease it is on, so when go-zero registers
// again on a new lease it overwrites its own key instead of adding one.
// The id is the address's FNV-1a hash, so each instance has its own.
func NewPublisherWithID(cli *clientv3.Client, service, addr string, opts discovery.Options) (discovery.Registrar, error) {
	return newPublisher(cli, service, addr, opts, discov.WithId(instanceID(addr)))
}

// instanceID is a positive id of addr for discov.WithId (go-zero uses an id
// only when it is above 0).
func instanceID(addr string) int64 {
	h := fnv.New64a()
	h.Write([]byte(addr))
	return int64(h.Sum64()>>1) | 1
}

func newPublisher(cli *clientv3.Client, service, addr string, opts discovery.Options, pub ...discov.PubOption) (discovery.Registrar, error) {
	switch {
	case cli == nil:
		return nil, fmt.Errorf("gozero: publisher of %s: nil client", service)
	case service == "":
		return nil, discovery.ErrBadService
	case addr == "":
		return nil, fmt.Errorf("%w for %s", discovery.ErrBadAddr, service)
	}
	if opts.TTL == 0 {
		opts.TTL = discovery.DefaultTTL
	}
	if want := time.Duration(discov.TimeToLive) * time.Second; opts.TTL != want {
		return nil, fmt.Errorf("%w: go-zero's publisher leases for discov.TimeToLive, %ds, not the %v asked for: "+
			"set discov.TimeToLive = %d before the first publisher, or run with a TTL of %v",
			discovery.ErrBadTTL, discov.TimeToLive, opts.TTL, int64(opts.TTL/time.Second), want)
	}
	eps, err := endpointsOf(cli, "publisher of "+service)
	if err != nil {
		return nil, err
	}
	return &publisher{cli: cli, service: service, addr: addr, ttl: opts.TTL, endpoint: eps, opts: pub, done: make(chan struct{})}, nil
}

// Key is go-zero's key for the instance once registered — the latest it
// wrote, as follow sees them — "<service>/?" before.
func (r *publisher) Key() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.key == "" {
		return r.service + "/?"
	}
	return r.key
}

// Lease is the lease the key was on when Register read it back.
func (r *publisher) Lease() clientv3.LeaseID {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lease
}

func (r *publisher) Done() <-chan struct{} { return r.done }

// Register publishes the instance with go-zero's KeepAlive, which takes
// no context: if ctx ends first, Register returns and KeepAlive goes on;
// should it succeed later, go-zero keeps the instance registered until
// Close. A second Register after a failed one starts a new Publisher.
func (r *publisher) Register(ctx context.Context) error {
	r.mu.Lock()
	switch {
	case r.closed:
		r.mu.Unlock()
		return fmt.Errorf("%w: %s at %s", discovery.ErrClosed, r.service, r.addr)
	case r.registered:
		r.mu.Unlock()
		return fmt.Errorf("%w: %s at %s", discovery.ErrRegistered, r.service, r.addr)
	}
	if r.p != nil {
		r.p.Stop() // a KeepAlive that failed or is still under way
	}
	p := discov.NewPublisher(slices.Clone(r.endpoint), r.service, r.addr, r.opts...) // go-zero sorts the slice it is given
	r.p = p
	errc := make(chan error, 1)
	r.mu.Unlock()
	// Not waited for by Close: KeepAlive takes no context, and blocks as
	// long as etcd does not answer.
	go func() { errc <- p.KeepAlive() }()

	select {
	case err := <-errc:
		if err != nil {
			return fmt.Errorf("gozero: register %s at %s: go-zero could not publish through etcd endpoints %v: %w",
				r.service, r.addr, r.endpoint, err)
		}
	case <-ctx.Done():
		return fmt.Errorf("gozero: register %s at %s through etcd endpoints %v: %w (go-zero's KeepAlive goes on)",
			r.service, r.addr, r.endpoint, context.Cause(ctx))
	}
	key, lease, rev, err := r.readBack(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.registered = true // go-zero keeps it registered, whatever the read says
	r.key, r.lease = key, lease
	fctx, stop := context.WithCancel(context.Background())
	r.stopFollow, r.followed = stop, make(chan struct{})
	go r.follow(fctx, rev)
	return err
}

// readBack finds the instance's key among the service's: the newest whose
// value is the address; and the revision it read at.
func (r *publisher) readBack(ctx context.Context) (string, clientv3.LeaseID, int64, error) {
	resp, err := r.cli.Get(ctx, r.service+"/", clientv3.WithPrefix())
	if err != nil {
		return "", 0, 0, fmt.Errorf("gozero: registered %s at %s, but reading its key back failed: %w", r.service, r.addr, err)
	}
	var key string
	var lease, created int64
	for _, kv := range resp.Kvs {
		if string(kv.Value) == r.addr && kv.CreateRevision > created {
			key, lease, created = string(kv.Key), kv.Lease, kv.CreateRevision
		}
	}
	if key == "" {
		return "", 0, resp.Header.Revision, fmt.Errorf("gozero: registered %s at %s, but no key under %s/ holds the address", r.service, r.addr, r.service)
	}
	return key, clientv3.LeaseID(lease), resp.Header.Revision, nil
}

// Close stops go-zero's Publisher, which revokes its lease in the
// background, and waits, at most a TTL, for the key to go. It is
// idempotent. A KeepAlive still waiting for etcd is not waited for:
// go-zero gives it no way to end.
func (r *publisher) Close() error {
	r.closeOnce.Do(func() { r.closeErr = r.close() })
	return r.closeErr
}

func (r *publisher) close() error {
	r.mu.Lock()
	r.closed = true
	stop, followed := r.stopFollow, r.followed
	r.mu.Unlock()
	if stop != nil {
		stop()
		<-followed
	}
	r.mu.Lock()
	p, key := r.p, r.key
	r.mu.Unlock()
	defer close(r.done)
	if p == nil {
		return nil
	}
	p.Stop()
	if key == "" {
		return nil // never registered, or its key was not found
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.ttl)
	defer cancel()
	if err := waitGone(ctx, r.cli, key); err != nil {
		return fmt.Errorf("gozero: deregister %s at %s: %w", r.service, r.addr, err)
	}
	return nil
}

// waitGone returns once key is not in etcd, or an error when ctx ends
// first.
func waitGone(ctx context.Context, cli *clientv3.Client, key string) error {
	resp, err := cli.Get(ctx, key)
	if err != nil {
		return fmt.Errorf("reading %s: %w", key, err)
	}
	if len(resp.Kvs) == 0 {
		return nil
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for wr := range cli.Watch(wctx, key, clientv3.WithRev(resp.Header.Revision+1), clientv3.WithFilterPut()) {
		if err := wr.Err(); err != nil {
			return fmt.Errorf("watching %s: %w", key, err)
		}
		if len(wr.Events) > 0 {
			return nil
		}
	}
	return errors.Join(fmt.Errorf("%s still there: go-zero did not revoke its lease", key), context.Cause(ctx))
}

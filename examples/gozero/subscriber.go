package gozero

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zeromicro/go-zero/core/discov"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/resolver"

	"github.com/etcdsim/etcdsim/discovery"
)

// subscriber is go-zero's discov.Subscriber as a discovery.Resolver, the
// way a zrpc client resolves a service: a Subscriber on the service's key,
// a listener that hands gRPC sub.Values() as addresses on every change,
// and, for each gRPC ClientConn, a Subscriber of its own, as zrpc's
// discov builder makes one per Build. go-zero dials etcd itself from the
// endpoints of the client it is given. go-zero's Subscriber gives values,
// not keys: the endpoints it reports carry the address alone.
type subscriber struct {
	service string
	eps     []string
	sub     *discov.Subscriber

	done      chan struct{} // closed by Close
	closeOnce sync.Once

	mu        sync.Mutex // guards state, observers, subs and closed
	state     discovery.State
	observers map[chan discovery.State]context.CancelFunc
	subs      map[*conn]bool
	closed    bool
}

// subscribeWait bounds how long NewSubscriber waits for go-zero to dial
// etcd and list the service: go-zero's dial gives up after 5s
// (internal.DialTimeout), but a cluster that answers no read keeps it
// listing again forever.
const subscribeWait = 15 * time.Second

// NewSubscriber returns a resolver of service through go-zero, dialling
// the endpoints cli dials.
func NewSubscriber(cli *clientv3.Client, service string, _ discovery.Options) (discovery.Resolver, error) {
	switch {
	case cli == nil:
		return nil, fmt.Errorf("gozero: subscriber of %s: nil client", service)
	case service == "":
		return nil, discovery.ErrBadService
	}
	eps, err := endpointsOf(cli, "subscriber of "+service)
	if err != nil {
		return nil, err
	}
	r := &subscriber{service: service, eps: eps, done: make(chan struct{}),
		observers: make(map[chan discovery.State]context.CancelFunc), subs: make(map[*conn]bool)}
	sub, err := subscribe(eps, service)
	if err != nil {
		return nil, err
	}
	r.sub = sub
	sub.AddListener(r.changed)
	r.changed()
	return r, nil
}

// subscribe makes a go-zero Subscriber of service, which dials etcd and
// lists the service before it returns, waiting at most subscribeWait.
func subscribe(eps []string, service string) (*discov.Subscriber, error) {
	type made struct {
		sub *discov.Subscriber
		err error
	}
	ch := make(chan made, 1)
	go func() { // left behind if go-zero never returns: it takes no context
		sub, err := discov.NewSubscriber(slices.Clone(eps), service) // go-zero sorts the slice it is given
		ch <- made{sub, err}
	}()
	select {
	case m := <-ch:
		if m.err != nil {
			return nil, fmt.Errorf("gozero: subscribe to %s: go-zero could not reach etcd at %v: %w", service, eps, m.err)
		}
		return m.sub, nil
	case <-time.After(subscribeWait):
		return nil, fmt.Errorf("gozero: subscribe to %s: go-zero had not listed it through etcd at %v after %v", service, eps, subscribeWait)
	}
}

// changed publishes go-zero's values as the state; go-zero calls it on
// every change, and must not be kept waiting.
func (r *subscriber) changed() {
	s := discovery.State{Listed: true}
	vals := r.sub.Values()
	slices.Sort(vals)
	for _, v := range vals {
		s.Endpoints = append(s.Endpoints, discovery.Endpoint{Addr: v})
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	r.state = s
	for ch := range r.observers {
		select { // drop the state the observer has not read yet
		case <-ch:
		default:
		}
		ch <- s
	}
}

func (r *subscriber) State() discovery.State {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.state
}

func (r *subscriber) Done() <-chan struct{} { return r.done }

// Observe sends the state, then every change; a slow reader finds only
// the latest in the channel.
func (r *subscriber) Observe(ctx context.Context) <-chan discovery.State {
	ch := make(chan discovery.State, 1)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		close(ch)
		return ch
	}
	ch <- r.state
	stop := context.AfterFunc(ctx, func() { r.unobserve(ch) })
	r.observers[ch] = func() { stop() }
	return ch
}

// unobserve closes ch and forgets it, unless Close did.
func (r *subscriber) unobserve(ch chan discovery.State) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.observers[ch]; ok {
		delete(r.observers, ch)
		close(ch)
	}
}

// Close closes go-zero's Subscribers, which ends their watch once no one
// else in the process follows the service, and every Observe channel.
// gRPC clients keep their last addresses. It is idempotent. go-zero's etcd
// client stays: go-zero keeps one per set of endpoints for the process's
// life.
func (r *subscriber) Close() error {
	r.closeOnce.Do(func() {
		r.mu.Lock()
		r.closed = true
		for ch, stop := range r.observers {
			stop()
			close(ch)
		}
		r.observers = nil
		subs := r.subs
		r.subs = nil
		r.mu.Unlock()
		for c := range subs {
			c.sub.Close()
		}
		r.sub.Close()
		close(r.done)
	})
	return nil
}

func (r *subscriber) Scheme() string { return discovery.Scheme }

// Build serves a gRPC ClientConn that dialled "etcd:///<service>" as
// zrpc's discov builder does: a Subscriber of its own, and its values
// handed to gRPC as addresses on every change.
func (r *subscriber) Build(target resolver.Target, cc resolver.ClientConn, _ resolver.BuildOptions) (resolver.Resolver, error) {
	if svc := strings.TrimPrefix(target.URL.Path, "/"); svc != r.service {
		return nil, fmt.Errorf("%w: %q, this resolver serves %q", discovery.ErrWrongTarget, target.URL.String(), r.service)
	}
	if r.isClosed() {
		return nil, fmt.Errorf("%w: resolver of %s", discovery.ErrClosed, r.service)
	}
	sub, err := subscribe(r.eps, r.service)
	if err != nil {
		return nil, err
	}
	c := &conn{r: r, sub: sub}
	update := func() {
		var addrs []resolver.Address
		for _, v := range sub.Values() {
			addrs = append(addrs, resolver.Address{Addr: v})
		}
		cc.UpdateState(resolver.State{Addresses: addrs}) //nolint:errcheck // as zrpc: gRPC reports a bad set itself
	}
	sub.AddListener(update)
	update()
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		sub.Close()
		return nil, fmt.Errorf("%w: resolver of %s", discovery.ErrClosed, r.service)
	}
	r.subs[c] = true
	r.mu.Unlock()
	return c, nil
}

func (r *subscriber) isClosed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closed
}

// conn is the resolver of one gRPC ClientConn.
type conn struct {
	r   *subscriber
	sub *discov.Subscriber
}

func (c *conn) ResolveNow(resolver.ResolveNowOptions) {} // go-zero's watch keeps it current

func (c *conn) Close() {
	c.r.mu.Lock()
	owned := c.r.subs[c]
	delete(c.r.subs, c)
	c.r.mu.Unlock()
	if owned {
		c.sub.Close()
	}
}

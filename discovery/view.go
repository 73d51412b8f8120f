package discovery

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/resolver"
)

// Scheme is the URL scheme the resolvers serve: "etcd:///<service>".
const Scheme = "etcd"

// view is what every resolver recipe shares: the state its source loop
// publishes, the gRPC ClientConns it feeds, observers, and the life cycle.
// A recipe is a source: a function that lists and follows the service and
// calls publish, until its context ends.
type view struct {
	cli     *clientv3.Client
	service string

	ctx    context.Context // ends on Close
	cancel context.CancelFunc
	done   chan struct{} // closed when the source returns
	wg     sync.WaitGroup

	// A publish hands its state to every ClientConn before State and
	// Observe show it, so a caller that sees a set knows gRPC's balancer
	// has it too.
	mu        sync.Mutex    // guards the fields below
	latest    State         // the state being published; what Build hands
	latestVer uint64        // counts publishes
	state     State         // the state every ClientConn has been handed
	version   uint64        // latestVer when state was set
	changed   chan struct{} // closed and replaced when state changes
	conns     map[*conn]struct{}
	closed    bool
}

// newView checks the arguments and starts source.
func newView(cli *clientv3.Client, service string, source func(ctx context.Context, v *view)) (*view, error) {
	if cli == nil {
		return nil, errors.New("discovery: nil client")
	}
	if service == "" {
		return nil, ErrBadService
	}
	v := &view{cli: cli, service: service, done: make(chan struct{}), changed: make(chan struct{}), conns: make(map[*conn]struct{})}
	v.ctx, v.cancel = context.WithCancel(context.Background())
	v.wg.Add(1)
	go func() {
		defer v.wg.Done()
		defer close(v.done)
		source(v.ctx, v)
	}()
	return v, nil
}

// publish hands s to every ClientConn, then makes it the state State and
// Observe report. The source is its only caller.
func (v *view) publish(s State) {
	v.mu.Lock()
	v.latest = s
	v.latestVer++
	ver := v.latestVer
	conns := make([]*conn, 0, len(v.conns))
	for c := range v.conns {
		conns = append(conns, c)
	}
	v.mu.Unlock()
	for _, c := range conns {
		c.update(s, ver)
	}
	v.mu.Lock()
	v.state, v.version = s, ver
	close(v.changed)
	v.changed = make(chan struct{})
	v.mu.Unlock()
}

// fail keeps the current set but marks it as one the resolver cannot
// vouch for.
func (v *view) fail(err error) {
	v.mu.Lock()
	s := v.latest
	v.mu.Unlock()
	s.Err = err
	v.publish(s)
}

func (v *view) State() State {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.state
}

func (v *view) Done() <-chan struct{} { return v.done }

func (v *view) Observe(ctx context.Context) <-chan State {
	out := make(chan State)
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closed {
		close(out)
		return out
	}
	v.wg.Add(1)
	go func() {
		defer v.wg.Done()
		defer close(out)
		var sent uint64
		for {
			v.mu.Lock()
			s, ver, changed := v.state, v.version, v.changed
			v.mu.Unlock()
			if ver != sent {
				select {
				case out <- s:
					sent = ver
					continue
				case <-ctx.Done():
					return
				case <-v.ctx.Done():
					return
				}
			}
			select {
			case <-changed:
			case <-ctx.Done():
				return
			case <-v.ctx.Done():
				return
			}
		}
	}()
	return out
}

func (v *view) Close() error {
	v.mu.Lock()
	v.closed = true
	v.mu.Unlock()
	v.cancel()
	v.wg.Wait()
	return nil
}

func (v *view) Scheme() string { return Scheme }

// Build serves a gRPC ClientConn that dialled "etcd:///<service>".
func (v *view) Build(target resolver.Target, cc resolver.ClientConn, _ resolver.BuildOptions) (resolver.Resolver, error) {
	svc := strings.TrimPrefix(target.URL.Path, "/")
	if svc == "" {
		svc = target.URL.Opaque
	}
	if svc != v.service {
		return nil, fmt.Errorf("%w: %q, this resolver serves %q", ErrWrongTarget, target.URL.String(), v.service)
	}
	c := &conn{v: v, cc: cc}
	v.mu.Lock()
	if v.closed {
		v.mu.Unlock()
		return nil, fmt.Errorf("%w: resolver of %s", ErrClosed, v.service)
	}
	v.conns[c] = struct{}{}
	s, ver := v.latest, v.latestVer
	v.mu.Unlock()
	c.update(s, ver)
	return c, nil
}

// conn is the resolver of one gRPC ClientConn.
type conn struct {
	v  *view
	cc resolver.ClientConn

	mu     sync.Mutex // guards sent and closed; held while calling cc
	sent   uint64     // version of the last state handed to cc
	closed bool
}

// update hands s to gRPC unless a later state was handed already. A state
// that was never listed is not handed: gRPC waits for the first.
func (c *conn) update(s State, ver uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || ver <= c.sent || !s.Listed {
		return
	}
	c.sent = ver
	eps := make([]resolver.Endpoint, 0, len(s.Endpoints))
	for _, e := range s.Endpoints {
		eps = append(eps, resolver.Endpoint{Addresses: []resolver.Address{{Addr: e.Addr}}})
	}
	c.cc.UpdateState(resolver.State{Endpoints: eps})
}

// ResolveNow is a hint the watch makes unneeded.
func (c *conn) ResolveNow(resolver.ResolveNowOptions) {}

func (c *conn) Close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.v.mu.Lock()
	delete(c.v.conns, c)
	c.v.mu.Unlock()
}

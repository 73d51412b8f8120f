package myrecipes

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/resolver"

	"github.com/etcdsim/etcdsim/discovery"
)

// watchResolver resolves one service for gRPC from etcd: it lists the
// service with a linearizable read, follows it with a watch from the
// revision it listed, and lists again whenever the watch fails (a
// compaction, a member that lost its leader, a broken connection). Reads
// and watch require a leader, so a member cut off from the others answers
// with an error rather than with stale data; until a listing succeeds
// again, State keeps the last set and says in Err why it cannot vouch for
// it.
type watchResolver struct {
	cli     *clientv3.Client
	service string
	decode  discovery.Decode // reads a record: DecodeRecord, unless Options.Decode says otherwise

	ctx    context.Context // ends on Close
	cancel context.CancelFunc
	done   chan struct{} // closed when run returns
	wg     sync.WaitGroup

	mu        sync.Mutex // guards state, observers, conns and closed
	state     discovery.State
	observers map[chan discovery.State]bool // each holds at most the latest state
	conns     map[*resolverConn]bool
	closed    bool
}

// NewResolver returns a resolver of service, to dial "etcd:///<service>"
// with (discovery.Dial). It reads the records the registrar here writes
// (DecodeRecord), or, given Options.Decode, those that reads: etcdsim
// hands it the decoder of the registrar it runs with, so it is judged
// beside etcdsim's own registrar too. A record it cannot read is left out.
func NewResolver(cli *clientv3.Client, service string, opts discovery.Options) (discovery.Resolver, error) {
	switch {
	case cli == nil:
		return nil, fmt.Errorf("myrecipes: resolver of %s: nil client", service)
	case service == "":
		return nil, discovery.ErrBadService
	}
	decode := opts.Decode
	if decode == nil {
		decode = DecodeRecord
	}
	r := &watchResolver{cli: cli, service: service, decode: decode, done: make(chan struct{}),
		observers: make(map[chan discovery.State]bool), conns: make(map[*resolverConn]bool)}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	r.wg.Go(func() {
		defer close(r.done)
		r.run(clientv3.WithRequireLeader(r.ctx))
	})
	return r, nil
}

// run lists and follows the service until Close.
func (r *watchResolver) run(ctx context.Context) {
	for ctx.Err() == nil {
		if err := r.listAndFollow(ctx); err != nil && ctx.Err() == nil {
			r.mu.Lock()
			s := r.state
			r.mu.Unlock()
			s.Err = err
			r.publish(s)
			select { // a watch that keeps failing must not spin
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
}

func (r *watchResolver) listAndFollow(ctx context.Context) error {
	resp, err := r.cli.Get(ctx, r.service+"/", clientv3.WithPrefix())
	if err != nil {
		return fmt.Errorf("myrecipes: list %s: %w", r.service, err)
	}
	eps := make(map[string]string) // key → address
	for _, kv := range resp.Kvs {
		if addr, err := r.decode(string(kv.Key), string(kv.Value)); err == nil && addr != "" {
			eps[string(kv.Key)] = addr
		}
	}
	rev := resp.Header.Revision
	r.publish(stateOf(eps, rev))

	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for wr := range r.cli.Watch(wctx, r.service+"/", clientv3.WithPrefix(), clientv3.WithRev(rev+1)) {
		if err := wr.Err(); err != nil {
			return fmt.Errorf("myrecipes: watch %s from revision %d: %w", r.service, rev+1, err)
		}
		for _, ev := range wr.Events {
			key := string(ev.Kv.Key)
			delete(eps, key)
			if ev.Type != clientv3.EventTypePut {
				continue
			}
			if addr, err := r.decode(key, string(ev.Kv.Value)); err == nil && addr != "" {
				eps[key] = addr
			}
		}
		rev = wr.Header.Revision
		r.publish(stateOf(eps, rev))
	}
	return fmt.Errorf("myrecipes: watch %s ended: %w", r.service, context.Cause(ctx))
}

func stateOf(eps map[string]string, rev int64) discovery.State {
	s := discovery.State{Listed: true, Rev: rev}
	for _, key := range slices.Sorted(maps.Keys(eps)) {
		s.Endpoints = append(s.Endpoints, discovery.Endpoint{Key: key, Addr: eps[key]})
	}
	return s
}

// publish makes s the state and hands it to every observer and ClientConn.
func (r *watchResolver) publish(s discovery.State) {
	r.mu.Lock()
	r.state = s
	for ch := range r.observers {
		select { // drop the state the observer has not read yet
		case <-ch:
		default:
		}
		ch <- s
	}
	conns := slices.Collect(maps.Keys(r.conns))
	r.mu.Unlock()
	for _, c := range conns {
		c.update(s)
	}
}

func (r *watchResolver) State() discovery.State {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.state
}

func (r *watchResolver) Done() <-chan struct{} { return r.done }

// Observe sends the state, then every change; a slow reader finds only
// the latest in the channel.
func (r *watchResolver) Observe(ctx context.Context) <-chan discovery.State {
	ch := make(chan discovery.State, 1)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		close(ch)
		return ch
	}
	ch <- r.state
	r.observers[ch] = true
	r.wg.Go(func() {
		select {
		case <-ctx.Done():
		case <-r.ctx.Done():
		}
		r.mu.Lock()
		delete(r.observers, ch)
		close(ch)
		r.mu.Unlock()
	})
	return ch
}

// Close stops following the service and closes every Observe channel;
// gRPC clients keep their last addresses.
func (r *watchResolver) Close() error {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.cancel()
	r.wg.Wait()
	return nil
}

func (r *watchResolver) Scheme() string { return discovery.Scheme }

// Build serves a gRPC ClientConn that dialled "etcd:///<service>".
func (r *watchResolver) Build(target resolver.Target, cc resolver.ClientConn, _ resolver.BuildOptions) (resolver.Resolver, error) {
	if svc := strings.TrimPrefix(target.URL.Path, "/"); svc != r.service {
		return nil, fmt.Errorf("%w: %q, this resolver serves %q", discovery.ErrWrongTarget, target.URL.String(), r.service)
	}
	c := &resolverConn{r: r, cc: cc}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, fmt.Errorf("%w: resolver of %s", discovery.ErrClosed, r.service)
	}
	r.conns[c] = true
	s := r.state
	r.mu.Unlock()
	c.update(s)
	return c, nil
}

// resolverConn feeds one gRPC ClientConn.
type resolverConn struct {
	r  *watchResolver
	cc resolver.ClientConn

	mu     sync.Mutex // guards last and closed; held while calling cc, so updates reach it in order
	last   int64      // the revision of the last set handed to cc
	closed bool
}

// update hands s to gRPC unless it is not listed yet, or older than what
// gRPC has (publish and Build can race). A set the resolver cannot vouch
// for is not handed: gRPC keeps the last one.
func (c *resolverConn) update(s discovery.State) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || !s.Listed || s.Err != nil || s.Rev < c.last {
		return
	}
	c.last = s.Rev
	eps := make([]resolver.Endpoint, 0, len(s.Endpoints))
	for _, e := range s.Endpoints {
		eps = append(eps, resolver.Endpoint{Addresses: []resolver.Address{{Addr: e.Addr}}})
	}
	c.cc.UpdateState(resolver.State{Endpoints: eps})
}

func (c *resolverConn) ResolveNow(resolver.ResolveNowOptions) {} // the watch keeps us current

func (c *resolverConn) Close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.r.mu.Lock()
	delete(c.r.conns, c)
	c.r.mu.Unlock()
}

package discovery

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Follow follows one service through a library of the user's — its
// subscriber, instancer or watcher — for a resolver Adapt builds. It runs
// until ctx ends, handing feed each complete set of instances the library
// lists or is told of, and each error that leaves it unsure of the last
// set. When ctx ends it stops the library's watchers and returns; an error
// it returns before then is kept as the state's Err, and the resolver
// stops (its Done closes).
type Follow func(ctx context.Context, feed Feed) error

// Feed is how a Follow hands its sets to the resolver Adapt built.
type Feed struct{ v *view }

// Set makes addrs the service's instances: gRPC clients built from the
// resolver get them, then State and Observe show them. An empty addrs is
// a listing that found none.
func (f Feed) Set(addrs ...string) {
	eps := make([]Endpoint, 0, len(addrs))
	for _, a := range addrs {
		eps = append(eps, Endpoint{Addr: a})
	}
	f.SetEndpoints(eps, 0)
}

// SetEndpoints is Set for a library that knows each instance's key, and
// perhaps the etcd revision the set reflects (0 if not).
func (f Feed) SetEndpoints(eps []Endpoint, rev int64) {
	eps = slices.Clone(eps)
	slices.SortFunc(eps, func(a, b Endpoint) int {
		return cmp.Or(cmp.Compare(a.Key, b.Key), cmp.Compare(a.Addr, b.Addr))
	})
	f.v.publish(State{Endpoints: eps, Listed: true, Rev: rev})
}

// Fail keeps the last set but marks it as one the resolver cannot vouch
// for, because of err.
func (f Feed) Fail(err error) { f.v.fail(err) }

// followGrace is how long Close waits for a Follow to return once its
// context has ended.
const followGrace = 5 * time.Second

// Adapt returns a Resolver of service for a library that follows the
// service itself: follow says how the library lists and watches, and
// Adapt does the rest — the gRPC resolver.Builder that hands each
// ClientConn every set, State, Observe, Done and an idempotent Close that
// ends follow's context and waits for it. A ResolverRecipe's constructor
// is then a few lines:
//
//	func newSubscriber(cli *clientv3.Client, service string, _ discovery.Options) (discovery.Resolver, error) {
//		sub, err := lib.NewSubscriber(endpoints, service)
//		if err != nil {
//			return nil, err
//		}
//		return discovery.Adapt(service, func(ctx context.Context, feed discovery.Feed) error {
//			defer sub.Stop()
//			sub.OnChange(func() { feed.Set(sub.Values()...) })
//			<-ctx.Done()
//			return nil
//		})
//	}
//
// A Follow that does not return within 5 s of its context ending makes
// Close return an error saying so, rather than hang the run.
func Adapt(service string, follow Follow) (Resolver, error) {
	if service == "" {
		return nil, ErrBadService
	}
	if follow == nil {
		return nil, fmt.Errorf("discovery: Adapt(%q): nil Follow", service)
	}
	v := &view{service: service, done: make(chan struct{}), changed: make(chan struct{}), conns: make(map[*conn]struct{})}
	v.ctx, v.cancel = context.WithCancel(context.Background())
	a := &adapted{view: v, followed: make(chan struct{})}
	go func() {
		defer close(a.followed)
		defer close(v.done)
		a.err = runFollow(v.ctx, service, follow, Feed{v})
		if a.err != nil && v.ctx.Err() == nil {
			v.fail(a.err)
		}
	}()
	return a, nil
}

// runFollow runs follow, turning a panic into an error naming it.
func runFollow(ctx context.Context, service string, follow Follow, feed Feed) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("discovery: the Follow of %s panicked: %v", service, p)
		}
	}()
	return follow(ctx, feed)
}

// adapted is a view whose source is a user's Follow, which Close waits for
// with a bound.
type adapted struct {
	*view
	followed chan struct{} // closed when follow has returned
	err      error         // what follow returned; read after followed
}

// Close ends follow's context, waits for it and for the view's observers,
// and reports a Follow that failed or would not return.
func (a *adapted) Close() error {
	a.view.mu.Lock()
	a.view.closed = true
	a.view.mu.Unlock()
	a.view.cancel()
	t := time.NewTimer(followGrace)
	defer t.Stop()
	select {
	case <-a.followed:
	case <-t.C:
		return fmt.Errorf("discovery: resolver of %s: its Follow has not returned %v after its context ended; it must stop the library's watchers and return when ctx ends", a.service, followGrace)
	}
	a.view.wg.Wait()
	if a.err != nil && !errors.Is(a.err, context.Canceled) {
		return fmt.Errorf("discovery: resolver of %s: %w", a.service, a.err)
	}
	return nil
}

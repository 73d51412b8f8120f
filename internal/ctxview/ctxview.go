// Package ctxview lets code that takes no context — etcd's
// client/v3/experimental/recipes, whose every call uses context.TODO or
// context.Background — run under a caller's context, unmodified.
//
// A View is a *clientv3.Client that shares a real client's connection: its
// KV requests carry the context last given to Use in place of the one they
// are handed, and its watches end when that context ends as well as when
// their own does. A recipe blocked in a watch therefore returns once the
// caller's context ends, instead of holding its goroutine until the
// process exits. The view also counts the requests it sends, so a test can
// measure how hard a waiter polls etcd.
//
//	v := ctxview.New(cli, nil)
//	v.Use(ctx)
//	q := recipe.NewQueue(v.Client(), "jobs")
//	item, err := q.Dequeue() // returns an error once ctx ends
//
// Never Close a view's Client: it would close the real client's watcher
// and lessor. The view owns no goroutine of its own.
package ctxview

import (
	"context"
	"sync"
	"sync/atomic"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// View is a context-bound view of one etcd client.
type View struct {
	real *clientv3.Client
	cli  *clientv3.Client

	mu  sync.Mutex      // guards ctx
	ctx context.Context // what every request carries; never nil

	requests *atomic.Int64 // KV requests and watches opened
}

// New returns a view of cli bound to context.Background until Use binds it
// to another. It counts its requests into count, which views may share;
// nil gives the view a count of its own.
func New(cli *clientv3.Client, count *atomic.Int64) *View {
	if count == nil {
		count = new(atomic.Int64)
	}
	v := &View{real: cli, ctx: context.Background(), requests: count}
	// NewCtxClient makes a client with no connection of its own; the
	// fields below give it the real client's, wrapped.
	c := clientv3.NewCtxClient(cli.Ctx(), clientv3.WithZapLogger(cli.GetLogger()))
	c.KV = kv{v: v}
	c.Watcher = watcher{v: v}
	c.Lease = cli.Lease
	c.Cluster = cli.Cluster
	c.Maintenance = cli.Maintenance
	c.Auth = cli.Auth
	v.cli = c
	return v
}

// Client returns the view as a client, for recipes that take one.
func (v *View) Client() *clientv3.Client { return v.cli }

// Use binds every request sent from now on, and every watch opened, to
// ctx. A watch already open keeps the context it was opened under.
func (v *View) Use(ctx context.Context) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.ctx = ctx
}

// Requests returns how many KV requests and watches the view's count holds.
func (v *View) Requests() int64 { return v.requests.Load() }

func (v *View) bound() context.Context {
	v.requests.Add(1)
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.ctx
}

// kv sends each request under the view's context.
type kv struct{ v *View }

func (k kv) Put(_ context.Context, key, val string, opts ...clientv3.OpOption) (*clientv3.PutResponse, error) {
	return k.v.real.Put(k.v.bound(), key, val, opts...)
}

func (k kv) Get(_ context.Context, key string, opts ...clientv3.OpOption) (*clientv3.GetResponse, error) {
	return k.v.real.Get(k.v.bound(), key, opts...)
}

func (k kv) GetStream(_ context.Context, key string, opts ...clientv3.OpOption) (clientv3.GetStreamChan, error) {
	return k.v.real.GetStream(k.v.bound(), key, opts...)
}

func (k kv) Delete(_ context.Context, key string, opts ...clientv3.OpOption) (*clientv3.DeleteResponse, error) {
	return k.v.real.Delete(k.v.bound(), key, opts...)
}

func (k kv) Compact(_ context.Context, rev int64, opts ...clientv3.CompactOption) (*clientv3.CompactResponse, error) {
	return k.v.real.Compact(k.v.bound(), rev, opts...)
}

func (k kv) Do(_ context.Context, op clientv3.Op) (clientv3.OpResponse, error) {
	return k.v.real.Do(k.v.bound(), op)
}

func (k kv) Txn(_ context.Context) clientv3.Txn { return k.v.real.Txn(k.v.bound()) }

// watcher opens each watch under both its own context and the view's.
type watcher struct{ v *View }

func (w watcher) Watch(ctx context.Context, key string, opts ...clientv3.OpOption) clientv3.WatchChan {
	bound := w.v.bound()
	wctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(bound, cancel)
	// When the watch's own context ends first, forget the view's: the
	// AfterFunc above would otherwise live as long as the view's context.
	context.AfterFunc(wctx, func() { stop() })
	return w.v.real.Watch(wctx, key, opts...)
}

func (w watcher) RequestProgress(ctx context.Context) error {
	return w.v.real.RequestProgress(ctx)
}

// Close does nothing: the watcher is the real client's, closed with it.
func (w watcher) Close() error { return nil }

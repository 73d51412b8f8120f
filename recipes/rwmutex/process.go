package rwmutex

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
	recipes "go.etcd.io/etcd/client/v3/experimental/recipes"

	"github.com/etcdsim/etcdsim/internal/ctxview"
	"github.com/etcdsim/etcdsim/lease"
	"github.com/etcdsim/etcdsim/lock"
)

// process runs etcd's recipes.RWMutex, unmodified, the way a service does:
// one session for the process, kept by a lease.Guard for as long as its
// lease lives and made anew once it may be lost, and a new RWMutex on it
// for each hold. Every recipe of the package is one, told apart by two
// switches.
//
// The upstream RWMutex takes no context: its waits end only when the key
// it waits on is deleted. Each hold therefore runs it on a ctxview.View of
// the client, bound to the caller's context, and on a session object of
// its own on the process's lease whose client is that view (the same
// lease: a second keepalive on it only renews it more often).
//
// RWMutex leaves its key behind when a wait fails, and its Unlock panics
// if the key was never made, so a Lock that fails, and an Unlock that
// does, end the process's session: revoking its lease removes the key.
type process struct {
	cli *clientv3.Client
	pfx string
	ttl time.Duration
	// check proves, after each wait, that the caller's key outlived it:
	// the difference between a correct use and etcd #16221.
	check bool
	// readersIgnoreDone gives read holders a Done that never closes.
	readersIgnoreDone bool

	requests atomic.Int64 // sent by every hold's view

	mu     sync.Mutex   // guards g and unbind
	g      *lease.Guard // the process's session; nil before the first hold
	unbind func() bool  // stops g from ending with the client
}

func newProcess(cli *clientv3.Client, name string, opts lock.Options, check, readersIgnoreDone bool) (*process, error) {
	pfx, ttl, err := resolve(cli, name, opts)
	if err != nil {
		return nil, err
	}
	return &process{cli: cli, pfx: pfx, ttl: ttl, check: check, readersIgnoreDone: readersIgnoreDone}, nil
}

// NewChecked returns the correct recipe's Locker for the read-write lock
// called name: RWMutex on a session per process, each wait proved by a
// read of the caller's key.
func NewChecked(cli *clientv3.Client, name string, opts lock.Options) (Locker, error) {
	return newProcess(cli, name, opts, true, false)
}

func newChecked(cli *clientv3.Client, name string, opts lock.Options) (Locker, error) {
	return NewChecked(cli, name, opts)
}

var (
	_ Locker         = (*process)(nil)
	_ Sessioner      = (*process)(nil)
	_ RequestCounter = (*process)(nil)
)

// Requests returns how many requests the process's holds and waits sent.
func (p *process) Requests() int64 { return p.requests.Load() }

// Session returns the lease of the process's session, opening one if
// there is none or the last may be lost.
func (p *process) Session(ctx context.Context) (clientv3.LeaseID, error) {
	g, err := p.guard(ctx)
	if err != nil {
		return 0, err
	}
	return g.ID(), nil
}

func (p *process) guard(ctx context.Context) (*lease.Guard, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.g != nil && p.g.Alive() {
		return p.g, nil
	}
	if p.g != nil {
		p.unbind()
		p.g.Close(context.WithoutCancel(ctx)) //nolint:errcheck // the lease is lost or going: best effort
		p.g = nil
	}
	g, err := lease.Grant(ctx, p.cli, p.ttl)
	switch {
	case errors.Is(err, lease.ErrBadTTL):
		return nil, fmt.Errorf("%w: lock %s: %w", ErrBadTTL, p.pfx, err)
	case err != nil:
		return nil, fmt.Errorf("rwmutex: %s: session: %w", p.pfx, err)
	}
	// The session lives as long as the process, here its client: when the
	// client closes, the guard stops and its lease expires as a crashed
	// process's would.
	p.g, p.unbind = g, context.AfterFunc(p.cli.Ctx(), g.Stop)
	return g, nil
}

// drop ends g if it is still the process's session: a hold that failed
// may have left its key on it.
func (p *process) drop(ctx context.Context, g *lease.Guard) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.g == g {
		p.unbind()
		p.g = nil
	}
	g.Close(context.WithoutCancel(ctx)) //nolint:errcheck // best effort: the lease expires a TTL after it stops anyway
}

func (p *process) RLock(ctx context.Context) (lock.Held, error) { return p.hold(ctx, false) }
func (p *process) Lock(ctx context.Context) (lock.Held, error)  { return p.hold(ctx, true) }

// hold takes the lock for a writer or a reader with a new RWMutex on the
// process's session.
func (p *process) hold(ctx context.Context, write bool) (lock.Held, error) {
	g, err := p.guard(ctx)
	if err != nil {
		return nil, err
	}
	v := ctxview.New(p.cli, &p.requests)
	v.Use(ctx)
	sctx, stop := context.WithCancel(g.Context())
	s, err := concurrency.NewSession(v.Client(), concurrency.WithLease(g.ID()),
		concurrency.WithTTL(int(p.ttl/time.Second)), concurrency.WithContext(sctx))
	if err != nil {
		stop()
		p.drop(ctx, g)
		return nil, fmt.Errorf("rwmutex: %s: session: %w", p.pfx, err)
	}
	end := func() { stop(); <-s.Done() }
	rw := recipes.NewRWMutex(s, p.pfx)
	take, what := rw.RLock, "rlock"
	if write {
		take, what = rw.Lock, "lock"
	}
	if err := take(); err != nil {
		end()
		p.drop(ctx, g)
		if errors.Is(err, rpctypes.ErrLeaseNotFound) { // the session was gone before its key was made
			return nil, fmt.Errorf("%w: %s: %s: %w", ErrExpired, p.pfx, what, err)
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("rwmutex: %s: %s: %w", p.pfx, what, context.Cause(ctx))
		}
		return nil, fmt.Errorf("rwmutex: %s: %s: %w", p.pfx, what, err)
	}
	h := &held{key: p.pfx, lease: g.ID(), done: g.Done()}
	if p.check {
		key, rev, err := p.own(ctx, g.ID())
		if err != nil {
			end()
			p.drop(ctx, g)
			return nil, fmt.Errorf("rwmutex: %s: %s: %w", p.pfx, what, err)
		}
		h.key, h.token = key, rev
	}
	if !write && p.readersIgnoreDone {
		h.done = nil // never closes
	}
	h.unlock = func(uctx context.Context) error {
		v.Use(uctx)
		err := rw.Unlock() // RUnlock is the same delete
		end()
		if err != nil {
			p.drop(uctx, g)
			return fmt.Errorf("rwmutex: %s: unlock: %w", p.pfx, err)
		}
		if !g.Alive() {
			return fmt.Errorf("%w: %s: the session was lost before unlock", lock.ErrNotHeld, p.pfx)
		}
		return nil
	}
	return h, nil
}

// own finds, with a linearizable read, the key on lease under the lock's
// prefix, and returns it and its create revision: the proof that the
// wait RWMutex ended still left the caller in line. No key is ErrExpired.
func (p *process) own(ctx context.Context, id clientv3.LeaseID) (string, int64, error) {
	resp, err := p.cli.Get(ctx, p.pfx+"/", clientv3.WithPrefix())
	if err != nil {
		return "", 0, fmt.Errorf("check key: %w", err)
	}
	for _, kv := range resp.Kvs {
		if clientv3.LeaseID(kv.Lease) == id {
			return string(kv.Key), kv.CreateRevision, nil
		}
	}
	return "", 0, fmt.Errorf("%w: no key on lease %x under %s", ErrExpired, id, p.pfx)
}

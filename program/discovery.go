package program

import (
	"context"
	"errors"
	"fmt"
	"sync"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/discovery"
	"github.com/etcdsim/etcdsim/internal/recipe"
)

// Registrar is a discovery registrar recipe called name whose every
// backend is a program run from argv (docs/protocol.md, family "discovery",
// role "registrar"): register puts the instance under the service and
// keeps it there; the event "done" says the program stopped keeping it.
// Closing the program's stdin deregisters it; a crash leaves the key to
// its lease.
func Registrar(name string, argv ...string) discovery.RegistrarRecipe {
	return RegistrarWith(name, Config{Argv: argv})
}

// RegistrarWith is Registrar with the program's settings.
func RegistrarWith(name string, cfg Config) discovery.RegistrarRecipe {
	return discovery.RegistrarRecipe{
		Name:    name,
		Summary: fmt.Sprintf("a registrar in a process of its own per backend: %q", cfg.Argv),
		Command: cfg.Argv,
		New: func(cli *clientv3.Client, service, addr string, opts discovery.Options) (discovery.Registrar, error) {
			switch {
			case service == "":
				return nil, discovery.ErrBadService
			case addr == "":
				return nil, discovery.ErrBadAddr
			}
			r := &registrar{cli: cli, addr: addr, key: service + "/" + addr, done: make(chan struct{})}
			s, err := begin(cfg, cli, request{Family: recipe.Discovery, Role: "registrar", Name: service,
				TTL: ttlSeconds(opts.TTL, discovery.DefaultTTL)}, r.event)
			if err != nil {
				return nil, err
			}
			r.session = s
			go func() { <-s.dead; r.stop() }()
			return r, nil
		},
	}
}

// registrar is one backend's registrar: its program.
type registrar struct {
	*session
	cli  *clientv3.Client
	addr string
	once sync.Once
	done chan struct{}

	mu    sync.Mutex // guards key, reg and lease
	key   string
	reg   bool
	lease clientv3.LeaseID
}

func (r *registrar) event(a answer) {
	if a.Event == "done" {
		r.stop()
	}
}

func (r *registrar) stop() { r.once.Do(func() { close(r.done) }) }

func (r *registrar) Register(ctx context.Context) error {
	r.mu.Lock()
	reg := r.reg
	r.mu.Unlock()
	if reg {
		return discovery.ErrRegistered
	}
	a, err := r.op(ctx, request{Op: "register", Addr: r.addr})
	if err != nil {
		return err
	}
	key := r.Key()
	if a.Key != "" {
		key = a.Key
	}
	lease := clientv3.LeaseID(a.Lease)
	if lease == 0 { // the program did not say: the lease the key is on
		if g, err := r.cli.Get(ctx, key); err == nil && len(g.Kvs) == 1 {
			lease = clientv3.LeaseID(g.Kvs[0].Lease)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reg, r.key, r.lease = true, key, lease
	return nil
}

// Lease is the lease register's answer named, or else the one its key
// was on when it registered: faults aimed at the backend's lease find it.
func (r *registrar) Lease() clientv3.LeaseID {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lease
}

func (r *registrar) Key() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.key
}

func (r *registrar) Done() <-chan struct{} { return r.done }

// Close ends the program, which deregisters as its stdin closes.
func (r *registrar) Close() error {
	r.close()
	r.stop()
	return nil
}

var _ discovery.Leaser = (*registrar)(nil)

// Resolver is a discovery resolver recipe called name whose every client
// is a program run from argv (docs/protocol.md, family "discovery", role
// "resolver"): watch answers the service's instances, and the events
// "endpoints" bring every later set; "unsure" says the program cannot
// vouch for the last one. etcdsim builds the gRPC resolver around it
// (discovery.Adapt).
func Resolver(name string, argv ...string) discovery.ResolverRecipe {
	return ResolverWith(name, Config{Argv: argv})
}

// ResolverWith is Resolver with the program's settings.
func ResolverWith(name string, cfg Config) discovery.ResolverRecipe {
	return discovery.ResolverRecipe{
		Name:    name,
		Summary: fmt.Sprintf("a resolver in a process of its own per client: %q", cfg.Argv),
		Command: cfg.Argv,
		New: func(cli *clientv3.Client, service string, opts discovery.Options) (discovery.Resolver, error) {
			if service == "" {
				return nil, discovery.ErrBadService
			}
			f := &follower{wake: make(chan struct{}, 1)}
			s, err := begin(cfg, cli, request{Family: recipe.Discovery, Role: "resolver", Name: service}, f.event)
			if err != nil {
				return nil, err
			}
			f.session = s
			res, err := discovery.Adapt(service, f.follow)
			if err != nil {
				s.close()
				return nil, err
			}
			return &resolverProc{Resolver: res, f: f}, nil
		},
	}
}

// follower hands the program's sets to the resolver discovery.Adapt
// built.
type follower struct {
	*session
	wake chan struct{} // a set came

	mu   sync.Mutex // guards sets
	sets []answer   // the program's endpoints and unsure events not fed yet, in order
}

// event queues the program's sets; it never blocks the reader.
func (f *follower) event(a answer) {
	if a.Event != "endpoints" && a.Event != "unsure" {
		return
	}
	f.mu.Lock()
	f.sets = append(f.sets, a)
	f.mu.Unlock()
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// next takes the sets queued.
func (f *follower) next() []answer {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.sets
	f.sets = nil
	return out
}

// follow sends watch, then feeds every set until ctx ends or the program
// goes.
func (f *follower) follow(ctx context.Context, feed discovery.Feed) error {
	a, err := f.op(ctx, request{Op: "watch"})
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	feed.SetEndpoints(endpoints(a), a.Rev)
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-f.dead:
			return f.gone()
		case <-f.wake:
			for _, a := range f.next() {
				if a.Event == "unsure" {
					feed.Fail(errors.New(errText(a)))
				} else {
					feed.SetEndpoints(endpoints(a), a.Rev)
				}
			}
		}
	}
}

func endpoints(a answer) []discovery.Endpoint {
	out := make([]discovery.Endpoint, 0, len(a.Endpoints))
	for _, e := range a.Endpoints {
		out = append(out, discovery.Endpoint{Key: e.Key, Addr: e.Addr})
	}
	return out
}

// resolverProc is the resolver with its program: Close ends both.
type resolverProc struct {
	discovery.Resolver
	f *follower
}

// Err is the program's: why it is gone, if it is.
func (r *resolverProc) Err() error { return r.f.Err() }

// Bypassing is the program's: whether it went around its client's links.
func (r *resolverProc) Bypassing() string { return r.f.Bypassing() }

func (r *resolverProc) Close() error {
	err := r.Resolver.Close()
	r.f.close()
	return err
}

// The program's freeze, thaw and exit, for faults.Program.
func (r *resolverProc) Freeze()               { r.f.Freeze() }
func (r *resolverProc) Thaw()                 { r.f.Thaw() }
func (r *resolverProc) OnExit(f func(string)) { r.f.OnExit(f) }

package scenarios

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/discovery"
	"github.com/etcdsim/etcdsim/faults"
	clientv3 "go.etcd.io/etcd/client/v3"
	"golang.org/x/sync/errgroup"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
)

// The discovery family's recipe values, as the faults they make name them.
const (
	registrarWhat = "discovery.Registrar"
	resolverWhat  = "discovery.Resolver"
)

// kindUnroutedRPC is a call no endpoint took: the resolver had given gRPC
// none, or none could be reached. DiscoveryConvergence reads only calls
// that reached an endpoint (checker.KindRPC); these are recorded, failed,
// so that reports show them.
const kindUnroutedRPC checker.Kind = "x-rpc-unrouted"

// registrarRecipe returns the scenario's registrar recipe.
func (s Scenario) registrarRecipe() (discovery.RegistrarRecipe, error) {
	return recipeOf(s.Workload.Registrar, s.Workload.Recipe, discovery.LookupRegistrar)
}

// resolverRecipe returns the scenario's resolver recipe.
func (s Scenario) resolverRecipe() (discovery.ResolverRecipe, error) {
	return recipeOf(s.Workload.ResolverRecipe, s.Workload.Resolver, discovery.LookupResolver)
}

// discoveryWorkload runs the discovery family. Each backend starts an echo
// server on a loopback port and keeps it registered under the service
// with the registrar recipe until the run ends, when it deregisters; a
// crashed backend's server stops with it, and the restarted process
// serves on a new port and registers that. Each resolver follows the
// service with the resolver recipe, recording every set it reports
// (each change, and a sample every think time, so that a quiet registry
// is judged too), and calls the service round robin through gRPC.
func (w *world) discoveryWorkload(ctx context.Context) error {
	reg, err := w.s.registrarRecipe()
	if err != nil {
		return err
	}
	res, err := w.s.resolverRecipe()
	if err != nil {
		return err
	}
	live := &echoServers{live: make(map[string]*discovery.Backend)}
	stop := w.env.Recorder().Observe(live.crashed)
	defer stop()
	var g errgroup.Group
	for i := 1; i <= w.s.Workload.Clients; i++ {
		name := fmt.Sprintf("c%d", i)
		g.Go(func() error { return w.backend(ctx, reg, name, live) })
	}
	for i := 1; i <= w.s.Workload.Observers; i++ {
		name := fmt.Sprintf("o%d", i)
		g.Go(func() error { return w.resolverClient(ctx, res, name) })
	}
	if w.s.judgedBy(checker.CheckerLeftBehind) {
		g.Go(func() error { return w.lister(ctx) })
	}
	return g.Wait()
}

// echoServers are the running echo servers, by backend, so that a backend's
// crash stops its server at once, as the death of its process would.
type echoServers struct {
	mu   sync.Mutex // guards live
	live map[string]*discovery.Backend
}

func (s *echoServers) set(name string, b *discovery.Backend) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.live[name] = b
}

// crashed is a checker.Observer: a recorded crash of a backend stops its
// server. Its error, if any, is the backend's to report when it closes the
// server again (Close is idempotent and returns it every time).
func (s *echoServers) crashed(_ context.Context, op checker.Operation) {
	if op.Kind != checker.KindCrash {
		return
	}
	s.mu.Lock()
	b := s.live[op.Client]
	s.mu.Unlock()
	if b != nil {
		b.Close()
	}
}

// backendInstance is one process of a backend: its echo server and the
// registrar that keeps it registered.
type backendInstance struct {
	cli        *clientv3.Client
	b          *discovery.Backend
	reg        discovery.Registrar
	registered bool   // the last register was ok
	attempted  bool   // a register was recorded, ok or unknown
	key        string // the key the last recorded registration named
}

// backend is one backend of the discovery workload.
func (w *world) backend(ctx context.Context, r discovery.RegistrarRecipe, name string, live *echoServers) error {
	wl := w.s.Workload
	var in *backendInstance
	fresh := func() error { // a new process: a new server, client and registrar; the dead one's registrar is closed (adopt)
		b, err := w.startBackend(name)
		if err != nil {
			return err
		}
		live.set(name, b)
		cli, err := w.env.Cluster().Client(name)
		if err != nil {
			return errors.Join(err, b.Close())
		}
		reg, err := construct(ctx, w, FamilyDiscovery, r.Name, name, registrarWhat, func() (discovery.Registrar, error) {
			return r.New(cli, wl.Key, b.Addr(), discovery.Options{TTL: wl.TTL.D(), Decode: wl.decoder()})
		})
		if err != nil {
			return errors.Join(err, b.Close())
		}
		in = &backendInstance{cli: cli, b: b, reg: reg}
		return nil
	}
	if err := fresh(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	for {
		err := w.step(ctx, name, func() error {
			if !in.registered {
				w.register(ctx, name, in)
			} else {
				w.moved(ctx, name, in)
			}
			return nil
		})
		switch {
		case errors.Is(err, faults.ErrRestarted):
			// The process died with its server and registrar: its client
			// is closed, so the registrar cannot deregister (trying can
			// only time out), and its endpoint leaves when the lease
			// expires. Its registrar is closed as the new one is made.
			if err := in.b.Close(); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if err := fresh(); err != nil {
				return fmt.Errorf("%s: restarting: %w", name, err)
			}
			continue
		case ctx.Err() != nil:
			return w.deregister(context.WithoutCancel(ctx), name, in)
		case err != nil:
			return errors.Join(fmt.Errorf("%s: %w", name, err), w.deregister(context.WithoutCancel(ctx), name, in))
		}
		if sleep(ctx, wl.Think.D()) != nil {
			return w.deregister(context.WithoutCancel(ctx), name, in)
		}
	}
}

// register registers the backendInstance and records it. A registration that
// does not return within the patience, or fails, is recorded as unknown:
// the endpoint may be in etcd all the same, until its lease expires; the
// backend tries again after its think time.
func (w *world) register(ctx context.Context, name string, in *backendInstance) {
	wl := w.s.Workload
	p := w.env.Recorder().Invoke(ctx, name, checker.KindRegister, wl.Key, checker.Input{Value: in.b.Addr()})
	in.attempted = true
	rctx, cancel := context.WithTimeout(ctx, wl.Patience.D())
	err := in.reg.Register(rctx)
	cancel()
	if err != nil {
		p.Unknown(ctx, err) // the next step tries again
		return
	}
	in.registered = true
	in.key = in.reg.Key()
	p.OK(ctx, checker.Output{Lease: w.registeredLease(ctx, in.cli, in.reg), Key: in.key})
}

// moved records, as a registration at this instant, that the registrar has
// registered the instance again under a key of its own choosing (its Key
// changed since the last registration recorded), so that left-behind
// knows which key it keeps now.
func (w *world) moved(ctx context.Context, name string, in *backendInstance) {
	key := in.reg.Key()
	if key == in.key {
		return
	}
	in.key = key
	w.env.Recorder().Instant(ctx, name, checker.KindRegister, w.s.Workload.Key, checker.Input{Value: in.b.Addr()},
		checker.Output{Lease: w.registeredLease(ctx, in.cli, in.reg), Key: key})
}

// registeredLease returns the lease of a registration, so that faults
// aimed at a backend's lease find it: its Lease method's if it is a
// discovery.Leaser, else the lease its key is on in etcd, read back; 0 if
// that read fails.
func (w *world) registeredLease(ctx context.Context, cli *clientv3.Client, reg discovery.Registrar) int64 {
	if ls, ok := reg.(discovery.Leaser); ok {
		return int64(ls.Lease())
	}
	rctx, cancel := context.WithTimeout(ctx, w.s.Workload.Patience.D())
	defer cancel()
	resp, err := cli.Get(rctx, reg.Key())
	if err != nil || len(resp.Kvs) == 0 {
		return 0
	}
	return resp.Kvs[0].Lease
}

// deregister closes the instance's registrar, which removes its endpoint,
// and records it if the endpoint may have been registered; then it stops
// the server.
func (w *world) deregister(ctx context.Context, name string, in *backendInstance) error {
	if !in.attempted {
		w.retire(name, registrarWhat) // nothing registered: nothing to record
		return in.b.Close()
	}
	p := w.env.Recorder().Invoke(ctx, name, checker.KindDeregister, w.s.Workload.Key, checker.Input{Value: in.b.Addr()})
	if err := w.retire(name, registrarWhat); err != nil {
		p.Unknown(ctx, err) // the endpoint leaves when its lease expires
	} else {
		p.OK(ctx, checker.Output{})
	}
	if err := in.b.Close(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// resolverClient is one resolver of the discovery workload: it records
// every set the resolver reports and, every think time, a sample of its
// set and an RPC through it.
func (w *world) resolverClient(ctx context.Context, r discovery.ResolverRecipe, name string) error {
	wl := w.s.Workload
	var res discovery.Resolver
	var cc *grpc.ClientConn
	var states <-chan discovery.State
	closeAll := func() error { // the gRPC client, then the resolver it used
		var err error
		if cc != nil {
			err = cc.Close()
		}
		w.retire(name, resolverWhat) // what it did wrong is the recipe's fault, noted
		cc, res = nil, nil
		return err
	}
	fresh := func() error { // a new process: a new client, resolver and gRPC client
		if cc != nil {
			cc.Close() // the dead process's; its resolver is closed as the new one is made (adopt)
			cc, res = nil, nil
		}
		cli, err := w.env.Cluster().Client(name)
		if err != nil {
			return err
		}
		if res, err = construct(ctx, w, FamilyDiscovery, r.Name, name, resolverWhat, func() (discovery.Resolver, error) {
			return r.New(cli, wl.Key, discovery.Options{Decode: wl.decoder()})
		}); err != nil {
			return err
		}
		if cc, err = discovery.Dial(res, wl.Key, w.env.Cluster().DialOptions()...); err != nil {
			return err
		}
		states = res.Observe(ctx)
		return nil
	}
	if err := fresh(); err != nil {
		return errors.Join(fmt.Errorf("%s: %w", name, err), closeAll())
	}
	tick := time.NewTicker(max(wl.Think.D(), 10*time.Millisecond))
	defer tick.Stop()
	rpcs := 0
	for {
		var s discovery.State
		changed := false
		select {
		case <-ctx.Done():
			return closeAll()
		case st, ok := <-states:
			if !ok {
				if ctx.Err() != nil {
					return closeAll()
				}
				return errors.Join(fmt.Errorf("%s: the resolver's Observe channel closed while the run went on%s", name, whyEnded(res)), closeAll())
			}
			s, changed = st, true
		case <-tick.C:
		}
		err := w.step(ctx, name, func() error {
			if changed {
				w.recordResolve(ctx, name, s)
				return nil
			}
			w.recordResolve(ctx, name, res.State())
			if wl.Ops == 0 || rpcs < wl.Ops {
				rpcs++
				w.rpc(ctx, name, cc)
			}
			return nil
		})
		switch {
		case errors.Is(err, faults.ErrRestarted):
			if err := fresh(); err != nil {
				return errors.Join(fmt.Errorf("%s: restarting: %w", name, err), closeAll())
			}
		case ctx.Err() != nil:
			return closeAll()
		case err != nil:
			return errors.Join(fmt.Errorf("%s: %w", name, err), closeAll())
		}
	}
}

// recordResolve records the set s of a resolver. A resolver that has not
// listed yet reports nothing; one that cannot vouch for its set (State.Err)
// reports a failed resolve, which DiscoveryConvergence does not judge.
func (w *world) recordResolve(ctx context.Context, name string, s discovery.State) {
	if !s.Listed {
		return
	}
	rec := w.env.Recorder()
	if s.Err != nil {
		w.noteUnreadable(s.Err)
		rec.Invoke(ctx, name, checker.KindResolve, w.s.Workload.Key, checker.Input{}).Fail(ctx, s.Err)
		return
	}
	rec.Instant(ctx, name, checker.KindResolve, w.s.Workload.Key, checker.Input{}, checker.Output{Endpoints: s.Addrs()})
}

// rpc calls the echo service through cc, waiting at most the patience,
// and records the call with the endpoint that took it. The endpoint is
// known only once the call returns, and an operation's input is recorded
// at its call, so the call is recorded when it returns: its call time is
// late by the call's duration.
func (w *world) rpc(ctx context.Context, name string, cc *grpc.ClientConn) {
	if ctx.Err() != nil {
		return // the run is over
	}
	rec := w.env.Recorder()
	var p peer.Peer
	rctx, cancel := context.WithTimeout(ctx, w.s.Workload.Patience.D())
	_, _, err := discovery.Echo(rctx, peerConn{ClientConn: cc, p: &p}, name)
	cancel()
	if p.Addr == nil {
		if ctx.Err() != nil {
			return // the run ended before any endpoint took the call
		}
		if err == nil {
			err = errors.New("the call succeeded with no peer")
		}
		rec.Invoke(ctx, name, kindUnroutedRPC, w.s.Workload.Key, checker.Input{}).Fail(ctx, err)
		return
	}
	op := rec.Invoke(ctx, name, checker.KindRPC, w.s.Workload.Key, checker.Input{Value: p.Addr.String()})
	switch {
	case err == nil:
		op.OK(ctx, checker.Output{})
	case errors.Is(err, context.DeadlineExceeded), status.Code(err) == codes.DeadlineExceeded:
		op.Unknown(ctx, err)
	default:
		op.Fail(ctx, err)
	}
}

// peerConn is a gRPC client that notes the peer each unary call went to.
type peerConn struct {
	*grpc.ClientConn
	p *peer.Peer
}

func (c peerConn) Invoke(ctx context.Context, method string, args, reply any, opts ...grpc.CallOption) error {
	return c.ClientConn.Invoke(ctx, method, args, reply, append(opts, grpc.Peer(c.p))...)
}

// startBackend starts a backend's echo server on the cluster's network, so
// that on the virtual clock its calls are in the bubble too.
func (w *world) startBackend(name string) (*discovery.Backend, error) {
	lis, err := w.env.Cluster().ListenService()
	if err != nil {
		return nil, fmt.Errorf("backend %s: %w", name, err)
	}
	return discovery.StartBackendOn(name, lis), nil
}

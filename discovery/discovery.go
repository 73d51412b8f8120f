package discovery

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/resolver"

	"github.com/etcdsim/etcdsim/lease"
)

// Sentinel errors. The errors returned wrap them with the service, key or
// target involved, so test them with errors.Is.
var (
	// ErrBadService is returned by a constructor given an empty service.
	ErrBadService = errors.New("discovery: empty service name")
	// ErrBadAddr is returned by a registrar constructor given an empty
	// address.
	ErrBadAddr = errors.New("discovery: empty instance address")
	// ErrBadTTL is returned for a TTL that is not a whole number of seconds
	// of at least one, or that the cluster raised to its own minimum. The
	// error wraps lease.ErrBadTTL as well.
	ErrBadTTL = errors.New("discovery: bad TTL")
	// ErrRegistered is returned by a second Register.
	ErrRegistered = errors.New("discovery: already registered")
	// ErrClosed is returned by calls on a registrar or resolver after Close.
	ErrClosed = errors.New("discovery: closed")
	// ErrWrongTarget is returned by Build for a target naming another
	// service than the resolver's.
	ErrWrongTarget = errors.New("discovery: target names another service")
	// ErrUnknownRecipe is returned by the Lookup functions for a name they
	// do not know.
	ErrUnknownRecipe = errors.New("discovery: no recipe named")
)

// Registrar keeps one instance of a service registered under a lease. The
// recipes of this package implement it; a user's own registrar that does
// can run in every scenario.
//
// The key's value is the record etcd's endpoints manager writes
// (client/v3/naming/endpoints: Manager.AddEndpoint with an Endpoint whose
// Addr is the instance's address, the JSON {"Op":0,"Addr":"…","Metadata":…}),
// the record etcd's naming resolver and every Resolver here read. A user's
// registrar that writes a format of its own hands the scenarios its
// Decode (scenarios.Scenario.WithDecoder), through which the resolvers
// read it; without it, each of its records is reported unreadable.
//
// A Registrar may also be a Leaser, so that faults aimed at its backend's
// lease find it; without it, the scenarios read back the lease the key is on.
type Registrar interface {
	// Register puts the instance under its service and returns once it is
	// there; the registrar then keeps it registered until Close.
	Register(ctx context.Context) error
	// Key is the instance's key, "<service>/<addr>".
	Key() string
	// Done is closed when the registrar has stopped keeping the instance
	// registered: after Close, or when a broken registrar gives up.
	Done() <-chan struct{}
	// Close stops, removes the registration and waits for every goroutine
	// the registrar started. It is idempotent. The scenarios call it once,
	// when the backend's simulated process crashes and at the end of the
	// run, where it is the backend's deregistration: a library that dialed
	// etcd itself must close that client here, or a crashed process's
	// lease lives on. One that panics, fails, blocks past 10 s on the run's
	// clock or finds itself closed already, and goroutines the recipe
	// leaves behind, are reported as the recipe's fault, by the rules
	// lock.Locker's documentation gives, and the run is judged all the same.
	Close() error
}

// Resolver resolves one service for gRPC clients that dial
// "etcd:///<service>" with it (see Dial), and shows what it resolved. It
// reads the records a Registrar writes under "<service>/": each key's
// value is the JSON record of etcd's endpoints manager, whose Op 0 adds the
// instance at Addr, or a record Options.Decode reads. Its Build hands gRPC (resolver.ClientConn.UpdateState)
// each set it has listed, and nothing before the first; the scenarios
// judge the sets State and Observe report (those with Listed true and no
// Err), and the calls gRPC routes through it.
type Resolver interface {
	resolver.Builder
	// State returns the set of instances the resolver believes current.
	State() State
	// Observe sends the state, then every change, until ctx ends or the
	// resolver is closed; then it closes the channel. A slow reader sees
	// the latest state, not each one. The resolvers here show a set only
	// once every ClientConn built from them has been handed it, and gRPC's
	// round-robin balancer takes it before UpdateState returns: a caller
	// that saw a set knows that calls from then on go to it.
	Observe(ctx context.Context) <-chan State
	// Done is closed when the resolver stops updating: after Close, or
	// when a broken resolver gives up.
	Done() <-chan struct{}
	// Close stops the resolver and waits for its goroutines. gRPC clients
	// built from it keep their last addresses. It is idempotent. The
	// scenarios call it once, when the resolving client's simulated process
	// crashes and at the end of the run, after closing the gRPC client
	// built from it, and report what it does wrong as the Registrar's.
	Close() error
}

// Leaser is implemented by a Registrar that can name the lease its key is
// on, so that faults aimed at its backend's lease
// (faults.RevokeLease(faults.Client("c1"))) find it. It is optional: without
// it the scenarios read the key back and take the lease it is on.
type Leaser interface {
	// Lease returns the lease the key was last put on, 0 before the first
	// registration.
	Lease() clientv3.LeaseID
}

// Endpoint is one registered instance.
type Endpoint struct {
	// Key is the instance's key in etcd.
	Key string `json:"key"`
	// Addr is where the instance listens.
	Addr string `json:"addr"`
}

// State is a resolver's view of its service.
type State struct {
	// Endpoints are the instances, sorted by key.
	Endpoints []Endpoint `json:"endpoints"`
	// Listed is true once the resolver has listed the service.
	Listed bool `json:"listed"`
	// Rev is the etcd revision the set reflects, where the recipe knows
	// it; 0 where it does not.
	Rev int64 `json:"rev,omitempty"`
	// Err, if not nil, says why the resolver cannot vouch for the set: it
	// is the last one it had.
	Err error `json:"-"`
}

// Addrs returns the instances' addresses, sorted.
func (s State) Addrs() []string {
	var out []string
	for _, e := range s.Endpoints {
		out = append(out, e.Addr)
	}
	slices.Sort(out)
	return out
}

// Options tunes a recipe. The zero Options is valid.
type Options struct {
	// TTL is a registration's lease TTL, a whole number of seconds. 0
	// means 10s. A TTL below the cluster's minimum (which etcd would
	// silently raise) is an error wrapping ErrBadTTL from Register.
	// Resolvers ignore it.
	TTL time.Duration `json:"ttl,omitempty"`
	// Decode, for a resolver, reads a registrar's record: the scenarios
	// give a resolver the Decode of the registrar they run it with (see
	// Decode). nil means the record of etcd's endpoints manager
	// (DecodeEndpoint) for the resolvers here; a user's resolver that has
	// a record format of its own reads that when it is nil. Registrars
	// ignore it.
	Decode Decode `json:"-"`
}

// DefaultTTL is the lease TTL used when Options.TTL is 0.
const DefaultTTL = 10 * time.Second

// check validates opts and fills in defaults.
func (opts Options) check() (Options, error) {
	if opts.TTL == 0 {
		opts.TTL = DefaultTTL
	}
	if err := lease.CheckTTL(opts.TTL); err != nil {
		return opts, fmt.Errorf("%w: Options.TTL: %w", ErrBadTTL, err)
	}
	return opts, nil
}

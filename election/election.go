package election

import (
	"context"
	"errors"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/lease"
)

// Sentinel errors. The errors returned wrap them with the prefix, key or
// lease involved, so test them with errors.Is.
var (
	// ErrBadPrefix is returned by a constructor given an empty prefix.
	ErrBadPrefix = errors.New("election: empty prefix")
	// ErrBadTTL is returned for a TTL that is not a whole number of seconds
	// of at least one, or that the cluster raised to its own minimum. The
	// error wraps lease.ErrBadTTL as well.
	ErrBadTTL = errors.New("election: bad TTL")
	// ErrNotLeader is returned by Proclaim or Resign of a leadership that
	// was resigned or lost.
	ErrNotLeader = errors.New("election: not leader")
	// ErrNoLeader is returned by Leader when nobody leads.
	ErrNoLeader = errors.New("election: no leader")
	// ErrLeaseExpired is returned by Campaign when the candidate's lease
	// expired while it waited its turn, or was gone when it checked after.
	ErrLeaseExpired = errors.New("election: lease expired while campaigning")
	// ErrClosed is returned by every call on an Elector after Close.
	ErrClosed = errors.New("election: elector closed")
	// ErrUnknownRecipe is returned by Lookup for a name it does not know.
	ErrUnknownRecipe = errors.New("election: no recipe named")
)

// Elector is one candidate's way into the election on one prefix: what
// every scenario needs of a recipe. The recipes of this package implement
// it and the optional LeaderReader and Observer too; a user's own recipe
// needs only Elector to run in every scenario.
type Elector interface {
	// Campaign blocks until the candidate leads with value, ctx ends, or
	// its lease is lost. It is safe to campaign again after a Resign or a
	// loss; each Campaign holds a lease of its own.
	Campaign(ctx context.Context, value string) (Leadership, error)
	// Close ends every campaign, observer and lease the Elector holds
	// (a leader it holds is resigned by its lease's revocation) and waits
	// for its goroutines. It is idempotent. The scenarios call it once,
	// when the simulated process the Elector stands for crashes and at the
	// end of the run; one that panics, fails, blocks past 10 s on the
	// run's clock or finds itself closed already, and goroutines the
	// recipe leaves behind, are reported as the recipe's fault, by the
	// rules lock.Locker's documentation gives, and the run is judged all
	// the same.
	Close() error
}

// LeaderReader is implemented by an Elector that can read who leads. It is
// optional: the election workload's observers poll it when the Elector is
// no Observer.
type LeaderReader interface {
	// Leader returns the current leader as a linearizable read sees it,
	// or an error wrapping ErrNoLeader.
	Leader(ctx context.Context) (LeaderInfo, error)
}

// Observer is implemented by an Elector that can follow the election. It
// is optional: the election workload's observers follow the election with
// it, poll LeaderReader instead when it is missing, and record that they
// could see nothing when both are.
type Observer interface {
	// Observe sends the leader, then every change of leader or value, until
	// ctx ends or the Elector is closed; then it closes the channel. Times
	// with no leader are not sent. A slow reader sees the latest change, not
	// each one.
	Observe(ctx context.Context) <-chan LeaderInfo
}

// Leadership is one term of office won by Campaign.
type Leadership interface {
	// Term is the leader key's create revision. Terms of one election
	// increase strictly from leader to leader. It is optional: 0 means the
	// recipe has none (declare it with Unfenced).
	Term() int64
	// Key is the leader key.
	Key() string
	// Value is the last value campaigned with or proclaimed.
	Value() string
	// Done is closed when leadership may be lost: after Resign, or when the
	// lease can no longer be known to be alive. A leader must stop acting
	// as one when Done is closed.
	Done() <-chan struct{}
	// Proclaim changes the leader's value without an election. It returns
	// an error wrapping ErrNotLeader if leadership was resigned or lost.
	Proclaim(ctx context.Context, value string) error
	// Resign ends the term so another candidate can win. It returns an
	// error wrapping ErrNotLeader if this leadership had already ended.
	Resign(ctx context.Context) error
}

// Unfenced is implemented by an Elector whose terms carry no number — a
// library's leader election that exposes no revision: Term returns 0.
// Unfenced says why, in a phrase. The scenarios then report fencing as not
// applicable, with that reason, and judge the election by who led when;
// without it, terms of 0 leave fencing unknown, and a scenario that expects
// every check ok is not met.
type Unfenced interface {
	Unfenced() string
}

// Leaser is implemented by a Leadership whose key is on an etcd lease it
// can name, so that faults aimed at the leader's lease find it. It is
// optional: without it the scenarios take the lease from the leader key
// when the key ends in it in hex, as concurrency.Election's keys do, and
// when neither tells, a fault that would revoke the leader's lease is
// recorded on the run as not applicable to the recipe, with the reason,
// and the run is still judged.
type Leaser interface {
	// Lease returns the lease the leader key is on, 0 if it has none.
	Lease() clientv3.LeaseID
}

// LeaderInfo is the leader as one read or one watch event saw it.
type LeaderInfo struct {
	// Key is the leader key, "<prefix>/<lease in hex>".
	Key string `json:"key"`
	// Value is the leader's current value.
	Value string `json:"value"`
	// Term is the leader key's create revision.
	Term int64 `json:"term"`
	// Rev is the leader key's mod revision: the revision of Value.
	Rev int64 `json:"rev"`
}

// Options tunes a recipe. The zero Options is valid.
type Options struct {
	// TTL is the lease TTL of each campaign, a whole number of seconds. 0
	// means 60s, the concurrency package's default. A TTL below the
	// cluster's minimum (which etcd would silently raise) is an error
	// wrapping ErrBadTTL from Campaign.
	TTL time.Duration `json:"ttl,omitempty"`
}

// DefaultTTL is the lease TTL used when Options.TTL is 0.
const DefaultTTL = 60 * time.Second

// check validates prefix and opts and fills in defaults.
func (opts Options) check(prefix string) (Options, error) {
	if prefix == "" {
		return opts, ErrBadPrefix
	}
	if opts.TTL == 0 {
		opts.TTL = DefaultTTL
	}
	if err := lease.CheckTTL(opts.TTL); err != nil {
		return opts, fmt.Errorf("%w: Options.TTL: %w", ErrBadTTL, err)
	}
	return opts, nil
}

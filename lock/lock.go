package lock

import (
	"context"
	"errors"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/lease"
)

// Sentinel errors. The errors the package returns wrap them with the lock,
// key or recipe involved, so test them with errors.Is.
var (
	// ErrBadName is returned for a lock asked for with an empty name.
	ErrBadName = errors.New("lock: empty lock name")
	// ErrBadTTL is returned for a TTL that is not a whole number of seconds,
	// is below MinTTL, or is below the cluster's minimum lease TTL. etcd
	// raises a short TTL silently; we refuse it, since a holder that
	// believes in a TTL it does not have is the bug. The error wraps
	// lease.ErrBadTTL as well.
	ErrBadTTL = errors.New("lock: bad TTL")
	// ErrNotHeld is returned by Unlock of a lock already released or lost
	// (its lease expired first), and by a guarded write from a holder that
	// no longer owns the lock.
	ErrNotHeld = errors.New("lock: not held")
	// ErrLeaseExpired is returned by Lock when the holder's lease ended before
	// the lock was acquired.
	ErrLeaseExpired = errors.New("lock: lease expired")
	// ErrStaleToken is returned by FencedResource.Write for a token lower
	// than the highest it has accepted.
	ErrStaleToken = errors.New("lock: stale fencing token")
	// ErrUnknownRecipe is returned by Lookup for a name not registered.
	ErrUnknownRecipe = errors.New("lock: no recipe named")
)

// Locker acquires one named lock on behalf of one client. Each successful
// Lock is a separate holder; the lock is free again when that holder
// unlocks or loses its lease. Implementations are safe for concurrent use
// unless their documentation says otherwise (the shared-session pitfall is
// the exception that proves why).
//
// A Locker stands for one simulated process. If it also has a method
// Close() error (io.Closer), the scenarios call it exactly once, when that
// process ends: when faults.Crash takes its client down (as the restarted
// process gets a new Locker), or at the end of the run, once the faults
// are healed. Close must stop and wait for everything the recipe started
// for the process — goroutines, lease keep-alives (a lease.Guard it keeps
// across holds), an etcd client a library dialed itself — and return nil;
// a crashed process's leases must then expire rather than be kept alive by
// a client that outlived it. It is called after the process's holders are
// done or abandoned, and may be called when some hold was never unlocked.
//
// What a Close does wrong is the recipe's fault, said in a sentence in the
// run's Result.RecipeFaults, and the run is judged all the same:
//
//   - it panics;
//   - it returns an error — except for a crashed process's, whose client is
//     closed, so that what Close asks of etcd fails;
//   - it does not return within 10 s on the run's clock (the run goes on,
//     and waits 50 s more for it at its end);
//   - it finds the value closed already (an error such as ErrClosed, a
//     panic closing a closed channel): the recipe or its library closed it
//     itself, when its session ended, say, and a Close called again must
//     return nil, as one behind a sync.Once does;
//   - New returned one value to two processes.
//
// A recipe that leaves goroutines behind when the run ends — with no Close,
// or with one that did not stop them — is told so in the same way, naming
// each goroutine and what to implement. Every family's recipe value is
// closed by the same rules: rwmutex.Locker, queue.Queue, barrier.Barrier
// and DoubleBarrier, stm.Txner and register's KV may have a Close;
// election.Elector and discovery's Registrar and Resolver have it in their
// interfaces.
type Locker interface {
	// Lock blocks until the caller holds the lock, or returns ctx's error
	// once ctx ends; a Lock that fails leaves nothing behind that blocks
	// other holders for longer than the holder's TTL.
	Lock(ctx context.Context) (Held, error)
}

// Held is one holder's ownership of a lock: what every scenario needs of
// a holder. What else a holder may offer, the scenarios find by type
// assertion and do without when it is missing:
//
//   - Leaser: the lease its key is on. Faults aimed at a holder's lease
//     (faults.RevokeLease(faults.LockHolder("L")), in the standard mix)
//     revoke it; without it they are recorded as not applicable to the
//     recipe, with the reason, and the run is judged all the same.
//   - Writer: a write to etcd that commits only while it holds the lock.
//     The workload writes through it once per hold; without it, it does
//     not.
//   - Checker: a read that asks etcd whether it still holds the lock,
//     needed only by a workload whose owner check is "read".
//
// Its fencing token is Token; a recipe without one returns 0. Such a
// holder is judged too: the fencing checker says it cannot decide, and the
// guarded resource, which then cannot refuse a late write, shows what a
// holder paused past its TTL does.
type Held interface {
	// Key is the etcd key that stands for this holder.
	Key() string
	// Token is the fencing token: a number that grows with each new
	// holder, so a resource can refuse a holder that was superseded. For
	// the recipes here it is the create revision of Key. 0 means the
	// recipe offers no token.
	Token() int64
	// Done is closed when ownership may have been lost: the holder's lease
	// expired, was revoked, or can no longer be renewed. An open Done is
	// no proof of ownership; a token checked by the resource is.
	Done() <-chan struct{}
	// Unlock releases the lock. It returns an error wrapping ErrNotHeld if
	// the lock was released before or lost before Unlock reached etcd.
	// Whatever it returns, the holder's local machinery (keepalives,
	// watches) is stopped.
	Unlock(ctx context.Context) error
}

// Unfenced is implemented by a Locker whose holders hand out no fencing
// token by design — a library whose lock descriptor exposes no revision,
// say. Unfenced says why, in a phrase. The scenarios then report fencing
// as not applicable, with that reason, and judge the lock by mutual
// exclusion and lost updates alone; without it, a lock whose holders'
// Token is 0 has fencing judged unknown ("the lock hands out none"), and
// a scenario that expects every check ok is not met.
type Unfenced interface {
	Unfenced() string
}

// Leaser is implemented by a Held whose key is on an etcd lease, so that
// faults aimed at the holder's lease can find it: the standard mix revokes
// the first holder's lease as it acquires. A Held without it, or whose
// Lease returns 0, runs in every scenario all the same; such a fault is
// then recorded on the run as not applicable to the recipe, naming the
// recipe and this interface, and the run is still judged.
type Leaser interface {
	// Lease returns the lease the holder's key is on, 0 if it has none.
	Lease() clientv3.LeaseID
}

// Checker is implemented by a Held that can ask etcd whether it still
// owns the lock.
type Checker interface {
	// Owned reports whether the holder's key still exists with the create
	// revision it was acquired with.
	Owned(ctx context.Context) (bool, error)
}

// KeepAliveChecker is implemented by a Held that tells whether it still
// holds the lock by an answer to a keep-alive of its lease, as a holder
// that reads clientv3's KeepAlive channel does; needed only by a workload
// whose owner check is "keepalive".
type KeepAliveChecker interface {
	// KeepAlive returns the keep-alive answer the holder judges by. An
	// answer whose TTL is 0 says the lease is gone.
	KeepAlive(ctx context.Context) (KeepAliveAnswer, error)
}

// KeepAliveAnswer is what a keep-alive answer said of a lease.
type KeepAliveAnswer struct {
	// TTL is the time to live the answer gave the lease; 0 means it said
	// the lease is gone (or the keep-alive channel had closed).
	TTL time.Duration
	// Header is the revision in the answer's header, 0 if there was none.
	Header int64
}

// Writer is implemented by a Held whose writes to etcd commit only while
// it owns the lock.
type Writer interface {
	// Put writes val at key if the holder still owns the lock and returns
	// the revision of the write, or an error wrapping ErrNotHeld.
	Put(ctx context.Context, key, val string) (int64, error)
}

// WakeCounter is implemented by Lockers that count how many watch events
// woke their waiters, to show the cost of a wait strategy.
type WakeCounter interface {
	// Wakeups returns the number of watch events the Locker's waiters
	// have received so far.
	Wakeups() int64
}

// Defaults and limits of Options.
const (
	// DefaultPrefix is where lock keys live when Options.Prefix is "".
	DefaultPrefix = "etcdsim/lock/"
	// DefaultTTL is the lease TTL when Options.TTL is 0. It is short so
	// that a lost holder frees a lock within a simulated run; the
	// concurrency package's default is 60s.
	DefaultTTL = 5 * time.Second
	// MinTTL is the smallest TTL etcd can grant: TTLs are whole seconds.
	// A cluster may require more (etcd raises a TTL below 1.5 election
	// timeouts); Lock finds that out from the lease it is granted.
	MinTTL = time.Second
)

// Options configures a Locker. The zero Options means DefaultPrefix and
// DefaultTTL.
type Options struct {
	// TTL is the lease TTL of each holder, a whole number of seconds, at
	// least MinTTL. 0 means DefaultTTL. Any other TTL, or one below the
	// cluster's minimum, is an error wrapping ErrBadTTL (the latter found at
	// the first Lock).
	TTL time.Duration `json:"ttl,omitempty"`
	// Prefix is put before every lock name. "" means DefaultPrefix.
	Prefix string `json:"prefix,omitempty"`
}

// resolve checks name and o and returns the lock's key prefix (without a
// trailing slash) and the TTL to use.
func (o Options) resolve(cli *clientv3.Client, name string) (pfx string, ttl time.Duration, err error) {
	if cli == nil {
		return "", 0, fmt.Errorf("lock: %q: nil client", name)
	}
	if name == "" {
		return "", 0, ErrBadName
	}
	ttl = o.TTL
	if ttl == 0 {
		ttl = DefaultTTL
	}
	if err := lease.CheckTTL(ttl); err != nil {
		return "", 0, fmt.Errorf("%w: lock %q: Options.TTL: %w", ErrBadTTL, name, err)
	}
	pfx = o.Prefix
	if pfx == "" {
		pfx = DefaultPrefix
	}
	return pfx + name, ttl, nil
}

package lease

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
)

// Sentinel errors. The errors the package returns wrap them with the lease
// or TTL involved, so test them with errors.Is.
var (
	// ErrBadTTL is returned for a TTL etcd cannot grant as asked: below 1s,
	// not a whole number of seconds, or below the cluster's own minimum
	// (which etcd would silently grant instead).
	ErrBadTTL = errors.New("lease: bad TTL")
	// ErrLost is what Err wraps once the lease is gone from the cluster or
	// may be: no renewal was acknowledged in time, or a renewal found the
	// lease gone (then the error wraps rpctypes.ErrLeaseNotFound too).
	ErrLost = errors.New("lease: lease lost")
	// ErrStopped is what Err wraps after Stop or Close.
	ErrStopped = errors.New("lease: guard stopped")
)

// CheckTTL returns nil for a TTL etcd can grant as asked, and otherwise an
// error wrapping ErrBadTTL that names ttl and says what would do: etcd grants
// whole seconds, at least one. A cluster may require more (etcd raises a
// TTL below 1.5 election timeouts); only Grant can find that out.
func CheckTTL(ttl time.Duration) error {
	switch {
	case ttl < time.Second:
		return fmt.Errorf("%w: %v; etcd grants whole seconds, at least 1s", ErrBadTTL, ttl)
	case ttl%time.Second != 0:
		lo := ttl.Truncate(time.Second)
		return fmt.Errorf("%w: %v is not a whole number of seconds, which is what etcd grants: use %v or %v",
			ErrBadTTL, ttl, lo, lo+time.Second)
	}
	return nil
}

// margin is how long before the earliest moment the cluster could expire
// the lease the guard closes Done; renewEvery is the time between two
// renewals. Both are a quarter of the TTL: see Guard.
func margin(ttl time.Duration) time.Duration     { return ttl / 4 }
func renewEvery(ttl time.Duration) time.Duration { return ttl / 4 }

// Guard keeps one lease alive and closes Done no later than the cluster
// could have expired it.
//
// Timing. The grant and every renewal (a KeepAliveOnce) note when they were
// sent. The server starts or renews the lease when the request reaches it,
// later than that, and expires it a TTL after; so, on the guard's own
// clock, the lease is alive at least until the send time of the last
// acknowledged renewal plus the TTL. Done closes a margin before that. The
// answer's arrival time plays no part: an answer that comes late, on a slow
// link, says the lease was renewed when its request arrived, not when the
// answer did. A guard that counted from the answer would close Done up to a
// round trip after the cluster expired the lease.
//
// Renewals go out every quarter TTL whether or not the previous one was
// answered, so several may be in flight on a slow link, and each
// acknowledged one moves the deadline to its own send time + TTL − margin.
//
// The margin is a quarter of the TTL (250ms on a 1s lease). It covers what
// the bound leaves out: the guard's goroutine scheduled late on a loaded
// machine, the time a holder needs to stop once Done closes, and a client
// clock that runs slower than the server's. With renewals every quarter TTL
// it leaves two renewals after each acknowledged one before Done closes,
// and answers delayed by less than half the TTL keep the lease guarded.
//
// A Guard is safe for concurrent use. Stop or Close it in every case: they
// join every goroutine the guard started.
type Guard struct {
	cli *clientv3.Client
	id  clientv3.LeaseID
	ttl time.Duration

	ctx    context.Context         // ends when Done closes; its cause is what Err returns
	cancel context.CancelCauseFunc // ends ctx: called by run or by Stop, the first cause wins
	exited chan struct{}           // closed when run has returned, every goroutine joined

	mu       sync.Mutex             // guards sessions, and orders Session against run's wait for them
	sessions []*concurrency.Session // made by Session; each stops when ctx ends

	closeOnce sync.Once
	closeErr  error // what Close returns; written once, inside closeOnce
}

// Grant grants a lease of ttl and keeps it alive until Stop or Close, or
// until it is lost. ctx bounds the grant only: the guard keeps ctx's values
// but not its cancellation or deadline.
//
// ttl must be a whole number of seconds, at least 1s (see CheckTTL), and
// no less than the cluster's minimum lease TTL, which etcd would silently
// grant instead: Grant then revokes that lease. Either way the error wraps
// ErrBadTTL.
func Grant(ctx context.Context, cli *clientv3.Client, ttl time.Duration) (*Guard, error) {
	if err := CheckTTL(ttl); err != nil {
		return nil, err
	}
	if cli == nil {
		return nil, fmt.Errorf("lease: grant a lease of %v: nil client", ttl)
	}
	want := int64(ttl / time.Second)
	sent := time.Now()
	resp, err := cli.Grant(ctx, want)
	if err != nil {
		return nil, fmt.Errorf("lease: grant a lease of %v: %w", ttl, err)
	}
	if resp.TTL != want {
		got := time.Duration(resp.TTL) * time.Second
		err := fmt.Errorf("%w: asked for %v, the cluster granted %v (etcd raises a TTL below its minimum, 1.5 election timeouts); ask for at least %v",
			ErrBadTTL, ttl, got, got)
		// The lease is ours to clean up even if ctx ends now.
		return nil, errors.Join(err, revoke(context.WithoutCancel(ctx), cli, resp.ID, max(ttl, got)))
	}
	g := &Guard{cli: cli, id: resp.ID, ttl: ttl, exited: make(chan struct{})}
	g.ctx, g.cancel = context.WithCancelCause(context.WithoutCancel(ctx))
	go g.run(sent.Add(ttl - margin(ttl)))
	return g, nil
}

// ID is the guarded lease.
func (g *Guard) ID() clientv3.LeaseID { return g.id }

// TTL is the lease's TTL, as granted.
func (g *Guard) TTL() time.Duration { return g.ttl }

// Done is closed when the lease may be gone: a margin before the cluster
// could have expired it, when a renewal found it gone, or after Stop or
// Close. Err says which.
func (g *Guard) Done() <-chan struct{} { return g.ctx.Done() }

// Alive reports whether Done is still open: the lease is known to be alive.
func (g *Guard) Alive() bool { return g.ctx.Err() == nil }

// Err is nil while Done is open. Then it says why Done closed: an error
// wrapping ErrLost (the lease may have expired, or is gone), or one
// wrapping ErrStopped.
func (g *Guard) Err() error { return context.Cause(g.ctx) }

// Context returns a context that ends when Done closes, for work tied to
// the lease; context.Cause of it is Err. It carries the values of the
// context given to Grant.
func (g *Guard) Context() context.Context { return g.ctx }

// Session returns a concurrency.Session on the guard's lease, for recipes
// built on concurrency.Mutex or concurrency.Election. The session renews
// the same lease too (harmless: a renewal only moves the expiry later) and
// stops when Done closes; Stop and Close wait for it. Watch the guard's
// Done rather than the session's, and end the guard rather than the
// session: Session.Close would revoke the lease from under the guard.
// Session fails once Done has closed.
func (g *Guard) Session() (*concurrency.Session, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.Err(); err != nil {
		return nil, fmt.Errorf("lease: session on lease %x: %w", g.id, err)
	}
	s, err := concurrency.NewSession(g.cli, concurrency.WithLease(g.id),
		concurrency.WithTTL(int(g.ttl/time.Second)), concurrency.WithContext(g.ctx))
	if err != nil {
		return nil, fmt.Errorf("lease: session on lease %x: %w", g.id, err)
	}
	g.sessions = append(g.sessions, s)
	return s, nil
}

// Stop stops renewing the lease and keeps it: the cluster expires it a TTL
// after its last renewal, as it would a crashed client's. It closes Done if
// it is open, and returns once every goroutine of the guard has ended.
// Stop is idempotent and safe to call concurrently, also with Close.
func (g *Guard) Stop() {
	g.cancel(fmt.Errorf("%w: lease %x", ErrStopped, g.id))
	<-g.exited
}

// Close stops the guard as Stop does, then revokes the lease, which
// deletes every key attached to it at once. The revoke is bounded by ctx
// and by the TTL (after which a lease no longer renewed has expired
// anyway); a caller cleaning up after its own ctx ended passes
// context.WithoutCancel(ctx). A lease already gone is no error. Close is
// idempotent: every call returns the first call's result, once it is known.
func (g *Guard) Close(ctx context.Context) error {
	g.closeOnce.Do(func() {
		g.Stop()
		g.closeErr = revoke(ctx, g.cli, g.id, g.ttl)
	})
	return g.closeErr
}

// renewal is the outcome of one renewal: when it was sent, and its error.
type renewal struct {
	sent time.Time
	err  error
}

// run renews the lease every renewEvery until the deadline valid passes
// without an acknowledged renewal to move it, a renewal finds the lease
// gone, or Stop ends g.ctx. Then it ends g.ctx with the reason, which
// closes Done and cancels the renewals in flight and the sessions, and
// waits for them.
func (g *Guard) run(valid time.Time) {
	defer close(g.exited)
	var renewals sync.WaitGroup
	results := make(chan renewal)
	tick := time.NewTicker(renewEvery(g.ttl))
	expire := time.NewTimer(time.Until(valid))
	var lastErr error // the last renewal error, for the message if the deadline passes
	cause := func() error {
		for {
			select {
			case <-g.ctx.Done():
				return nil // stopped: the cause is set
			case <-tick.C:
				renewals.Add(1)
				go func() {
					defer renewals.Done()
					g.renew(results)
				}()
			case r := <-results:
				switch {
				case r.err == nil:
					if v := r.sent.Add(g.ttl - margin(g.ttl)); v.After(valid) {
						valid = v
						expire.Reset(time.Until(valid))
					}
				case errors.Is(r.err, rpctypes.ErrLeaseNotFound):
					return fmt.Errorf("%w: lease %x is gone from the cluster: %w", ErrLost, g.id, r.err)
				default:
					lastErr = r.err
				}
			case <-expire.C:
				err := fmt.Errorf("%w: lease %x may have expired: no renewal sent in the last %v was acknowledged",
					ErrLost, g.id, g.ttl-margin(g.ttl))
				if lastErr != nil {
					err = fmt.Errorf("%w (the last one failed: %w)", err, lastErr)
				}
				return err
			}
		}
	}()
	if cause != nil {
		g.cancel(cause)
	}
	tick.Stop()
	expire.Stop()
	renewals.Wait()
	g.mu.Lock()
	sessions := g.sessions // none is added once g.ctx has ended
	g.mu.Unlock()
	for _, s := range sessions {
		<-s.Done()
	}
}

// renew sends one renewal and hands its outcome to run, unless the guard
// has stopped meanwhile. A renewal in flight is cancelled when g.ctx ends.
func (g *Guard) renew(results chan<- renewal) {
	sent := time.Now()
	_, err := g.cli.KeepAliveOnce(g.ctx, g.id)
	select {
	case results <- renewal{sent: sent, err: err}:
	case <-g.ctx.Done():
	}
}

// revoke revokes lease id, within ctx and for at most ttl. A lease already
// gone is no error.
func revoke(ctx context.Context, cli *clientv3.Client, id clientv3.LeaseID, ttl time.Duration) error {
	rctx, cancel := context.WithTimeout(ctx, ttl)
	defer cancel()
	if _, err := cli.Revoke(rctx, id); err != nil && !errors.Is(err, rpctypes.ErrLeaseNotFound) {
		return fmt.Errorf("lease: revoke lease %x: %w", id, err)
	}
	return nil
}

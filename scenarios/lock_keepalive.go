package scenarios

import (
	"context"
	"fmt"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/lock"
)

// keepAliveOwns is the owner check "keepalive": the holder asks its
// recipe for an answer to a keep-alive of its lease (lock.KeepAliveChecker)
// and holds on while the answer gives the lease a TTL. The answer is
// recorded as a keepalive of the holder's lease, over the time the holder
// waited for it, so that RevokedLease can tell whether it was taken after
// the lease had been revoked. A holder that gets no answer within its TTL
// stops, as a careful one would; that is recorded as failed.
func (w *world) keepAliveOwns(ctx context.Context, name string, h lock.Held) (bool, error) {
	k, ok := h.(lock.KeepAliveChecker)
	if !ok {
		return false, fmt.Errorf("%w: lock recipe %q: its holder (%T) has no KeepAlive method (lock.KeepAliveChecker), which workload.owner_check %q needs; use %q",
			ErrRecipe, w.s.Workload.Recipe, h, OwnerCheckKeepAlive, OwnerCheckDone)
	}
	var id int64
	if l, ok := h.(lock.Leaser); ok {
		id = int64(l.Lease())
	}
	if id == 0 {
		return false, fmt.Errorf("%w: lock recipe %q: its holder (%T) names no lease (lock.Leaser), which workload.owner_check %q records its answers under",
			ErrRecipe, w.s.Workload.Recipe, h, OwnerCheckKeepAlive)
	}
	p := w.env.Recorder().Invoke(ctx, name, checker.KindKeepAlive, w.s.Workload.Key, checker.Input{})
	kctx, cancel := context.WithTimeout(ctx, w.s.Workload.TTL.D())
	a, err := k.KeepAlive(kctx)
	cancel()
	if err != nil {
		p.Fail(ctx, err)
		return false, nil // a holder that cannot tell stops
	}
	p.OK(ctx, checker.Output{Lease: id, TTL: a.TTL, Header: a.Header})
	return a.TTL > 0, nil
}

package barrier

import (
	"context"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/lock"
)

// BROKEN (deliberately): etcd's own recipes.DoubleBarrier, run as it is;
// found by etcdsim and not reported upstream. Enter puts the process's
// key under <name>/waiters and, not the last, watches <name>/ready from
// that key's revision, returning nil when the watch channel closes,
// whatever closed it. A waiter whose connection drops while others
// arrive, and etcd compacts, resumes its watch from a revision that is
// gone: etcd cancels the watch and Enter returns nil before the count
// has arrived. Shown by the scenario
// upstream/etcdsim-double-barrier-enter/compacted-watch; the checked
// recipe is its fix.
//
// What is ours is only what every recipe here needs to run at all: a
// session per process, made at the first Enter and again once it is
// lost, and a view of the client whose requests carry the caller's
// context, which ends the recipe's watch when that context ends, so that
// a call whose context has ended returns the context's error. A failed
// Enter is returned as it is, its key possibly left behind, as etcd's
// recipe leaves it.
func newUpstreamDoubleBarrier(cli *clientv3.Client, name string, count int, opts lock.Options) (DoubleBarrier, error) {
	u := &upstreamDouble{}
	if err := u.init(cli, name, count, opts); err != nil {
		return nil, err
	}
	return u, nil
}

// upstreamDouble is etcd's recipes.DoubleBarrier on a context view.
type upstreamDouble struct{ doubleRun }

// Enter returns once the recipe's Enter does.
func (u *upstreamDouble) Enter(ctx context.Context) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if err := u.begin(ctx); err != nil {
		return err
	}
	err := u.b.Enter()
	if err == nil && ctx.Err() != nil {
		err = context.Cause(ctx)
	}
	if err != nil {
		return u.enterErr(err)
	}
	return nil
}

// Leave returns once the recipe's Leave does.
func (u *upstreamDouble) Leave(ctx context.Context) error { return u.leave(ctx) }

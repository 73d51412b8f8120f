package election

import (
	"context"
	"fmt"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// order says which candidate key leads: the oldest by create revision (the
// right rule) or, for the broken "modrevision" recipe, by mod revision.
type order int

const (
	byCreate order = iota
	byMod
)

// leaderAt reads the leader of the election under pfx ("<prefix>/") at
// revision rev (0: now, linearizably). It returns the zero LeaderInfo if
// nobody leads, and the revision the read saw.
func leaderAt(ctx context.Context, cli *clientv3.Client, pfx string, ord order, rev int64) (LeaderInfo, int64, error) {
	target := clientv3.SortByCreateRevision
	if ord == byMod {
		target = clientv3.SortByModRevision
	}
	opts := []clientv3.OpOption{clientv3.WithPrefix(), clientv3.WithSort(target, clientv3.SortAscend), clientv3.WithLimit(1)}
	if rev > 0 {
		opts = append(opts, clientv3.WithRev(rev))
	}
	resp, err := cli.Get(ctx, pfx, opts...)
	if err != nil {
		return LeaderInfo{}, 0, fmt.Errorf("election: read leader of %s: %w", pfx, err)
	}
	if len(resp.Kvs) == 0 {
		return LeaderInfo{}, resp.Header.Revision, nil
	}
	kv := resp.Kvs[0]
	return LeaderInfo{Key: string(kv.Key), Value: string(kv.Value), Term: kv.CreateRevision, Rev: kv.ModRevision}, resp.Header.Revision, nil
}

// leader is Elector.Leader for the client-side recipes.
func leader(ctx context.Context, cli *clientv3.Client, pfx string, ord order) (LeaderInfo, error) {
	info, _, err := leaderAt(ctx, cli, pfx, ord, 0)
	if err != nil {
		return info, err
	}
	if info.Term == 0 {
		return info, fmt.Errorf("%w under %s", ErrNoLeader, pfx)
	}
	return info, nil
}

// observers runs the goroutines of Observe for an Elector and ends them on
// its Close. The zero value is ready to use.
type observers struct {
	mu     sync.Mutex // guards base, cancel and closed; held while adding to wg
	base   context.Context
	cancel context.CancelFunc
	closed bool
	wg     sync.WaitGroup
}

// start runs fn in a goroutine with a context that ends with ctx or on
// close. fn must close out when it returns. After close, out is closed at
// once.
func (o *observers) start(ctx context.Context, out chan LeaderInfo, fn func(context.Context, chan<- LeaderInfo)) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		close(out)
		return
	}
	if o.base == nil {
		o.base, o.cancel = context.WithCancel(context.Background())
	}
	ctx, cancel := context.WithCancel(ctx)
	unhook := context.AfterFunc(o.base, cancel)
	o.wg.Add(1)
	go func() {
		defer o.wg.Done()
		defer cancel()
		defer unhook()
		fn(ctx, out)
	}()
}

// close ends every observer and waits for them.
func (o *observers) close() {
	o.mu.Lock()
	o.closed = true
	if o.cancel != nil {
		o.cancel()
	}
	o.mu.Unlock()
	o.wg.Wait()
}

// watchLeader is the body of Observe for the client-side recipes: read the
// leader, watch the prefix from the revision read, and read the leader
// again at the revision of every batch of events. A failed watch (a
// compaction, a lost member) is followed by a fresh read.
func watchLeader(cli *clientv3.Client, pfx string, ord order) func(context.Context, chan<- LeaderInfo) {
	return func(ctx context.Context, out chan<- LeaderInfo) {
		defer close(out)
		var last LeaderInfo
		send := func(info LeaderInfo) bool {
			if info.Term == 0 || info == last {
				return true
			}
			select {
			case out <- info:
				last = info
				return true
			case <-ctx.Done():
				return false
			}
		}
		for ctx.Err() == nil {
			info, rev, err := leaderAt(ctx, cli, pfx, ord, 0)
			if err != nil {
				pause(ctx, retryPause)
				continue
			}
			if !send(info) {
				return
			}
			wctx, cancel := context.WithCancel(ctx)
			for wr := range cli.Watch(wctx, pfx, clientv3.WithPrefix(), clientv3.WithRev(rev+1)) {
				if wr.Err() != nil {
					break
				}
				info, _, err := leaderAt(ctx, cli, pfx, ord, wr.Header.Revision)
				if err != nil {
					break
				}
				if !send(info) {
					cancel()
					return
				}
			}
			cancel()
		}
	}
}

// pause waits for d or until ctx ends.
func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// retryPause is how long an observer waits before reading again after a
// failed read or a broken stream.
const retryPause = 50 * time.Millisecond

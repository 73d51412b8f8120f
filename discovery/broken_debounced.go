package discovery

import (
	"context"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// BROKEN (deliberately): a resolver that misapplies its watch's events.
// To spare gRPC a burst of updates it gathers the events that arrive
// within debounceWindow and hands over one update per window — a common
// and harmless idea — but it turns each window's events into a set of
// keys put and a set of keys deleted and applies the puts first, then the
// deletes, as if the order of events within a window did not matter. It
// does: an instance whose lease was lost and whose registrar put the same
// key again at once — a delete then a put of one key, milliseconds apart —
// is deleted last, and the resolver drops an instance that is registered
// and serving until the key changes again, which for a healthy instance
// is never. Everything else it does as NewRelisting does, listing again
// whenever its watch fails, so it passes every schedule in which no key is
// deleted and put again. Applying each event in revision order, the last
// event of a key winning, is the fix. Shown by the scenario
// discovery/debounced/reregister.
//
// newDebounced returns a Resolver like NewRelisting whose watch events are
// gathered per window and applied puts first, deletes second.
func newDebounced(cli *clientv3.Client, service string, opts Options) (Resolver, error) {
	return newView(cli, service, relist{requireLeader: true, follow: followDebounced, decode: opts.decoder()}.run)
}

// debounceWindow is how long newDebounced gathers events before it applies
// them.
const debounceWindow = 100 * time.Millisecond

// followDebounced is follow with the events of each window applied as two
// sets: every key put, then every key deleted.
func followDebounced(ctx context.Context, v *view, l *listing, rev int64) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	wch := v.cli.Watch(wctx, v.service+"/", clientv3.WithPrefix(), clientv3.WithRev(rev+1))
	for {
		wr, ok := <-wch
		if !ok {
			return watchEnded(ctx, v.service)
		}
		if err := wr.Err(); err != nil {
			return fmt.Errorf("discovery: watch %s from revision %d: %w", v.service, rev+1, err)
		}
		put, deleted := map[string][]byte{}, map[string]bool{}
		var werr error
		gather := func(wr clientv3.WatchResponse) {
			for _, ev := range wr.Events {
				key := string(ev.Kv.Key)
				if ev.Type != clientv3.EventTypePut {
					deleted[key] = true // the mistake: a later put of the key does not undo it
					continue
				}
				put[key] = ev.Kv.Value
			}
			rev = wr.Header.Revision
		}
		gather(wr)
		window := time.NewTimer(debounceWindow)
	gathering:
		for {
			select {
			case more, ok := <-wch:
				if !ok {
					werr = watchEnded(ctx, v.service)
					break gathering
				}
				if err := more.Err(); err != nil {
					werr = fmt.Errorf("discovery: watch %s: %w", v.service, err)
					break gathering
				}
				gather(more)
			case <-window.C:
				break gathering
			}
		}
		window.Stop()
		for key, value := range put {
			l.put(key, value)
		}
		for key := range deleted {
			l.del(key)
		}
		v.publish(l.state(rev))
		if werr != nil {
			return werr
		}
	}
}

// watchEnded says why a watch channel closed.
func watchEnded(ctx context.Context, service string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return fmt.Errorf("discovery: watch %s ended", service)
}

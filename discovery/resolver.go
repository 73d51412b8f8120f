package discovery

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// NewRelisting returns a Resolver that lists the service with a
// linearizable read, follows it with a watch from the revision it listed,
// and lists again whenever the watch fails — compacted, cancelled because
// the member it talks to lost its leader, or broken with the connection.
// Its reads and its watch require a leader, so a member cut off from the
// others answers with an error instead of its stale data; until the next
// listing succeeds, State keeps the last set and says why it cannot vouch
// for it. (clientv3 retries a read refused for want of a leader, 100 times
// by default, so a resolver that never listed shows its first error only
// when the client gives up, some seconds later; it shows no set meanwhile.)
//
// It reads the records etcd's endpoints manager writes (see NewKeepAlive),
// or those Options.Decode reads; a record it cannot read is left out of
// the set, and the set says so in State.Err (UnreadableError).
// It does not use client/v3/naming/resolver, which stops for good on a
// watch error (newStopsOnError shows it), nor the manager's List and watch
// channel, which read serializably.
func NewRelisting(cli *clientv3.Client, service string, opts Options) (Resolver, error) {
	return newView(cli, service, relist{serializable: false, requireLeader: true, decode: opts.decoder()}.run)
}

// relist is the source of NewRelisting and, with the wrong settings, of
// newSerializable.
type relist struct {
	serializable  bool // list with serializable reads: whatever the member has
	requireLeader bool // reads and watch fail on a member without a leader
	decode        Decode
	// follow applies the watch's events from the listing on, until the
	// watch ends; nil means follow. newDebounced's applies them wrongly.
	follow func(ctx context.Context, v *view, l *listing, rev int64) error
}

func (r relist) run(ctx context.Context, v *view) {
	rctx := ctx
	if r.requireLeader {
		rctx = clientv3.WithRequireLeader(ctx)
	}
	for ctx.Err() == nil {
		l, rev, err := list(rctx, v.cli, v.service, r.serializable, r.decode)
		if err != nil {
			v.fail(err)
			pause(ctx, retryPause)
			continue
		}
		v.publish(l.state(rev))
		err = r.apply(rctx, v, l, rev)
		if ctx.Err() != nil {
			return
		}
		v.fail(err)
		pause(ctx, retryPause) // a watch that keeps failing must not spin
	}
}

// apply follows the watch with r.follow, or follow if that is nil.
func (r relist) apply(ctx context.Context, v *view, l *listing, rev int64) error {
	if r.follow != nil {
		return r.follow(ctx, v, l, rev)
	}
	return follow(ctx, v, l, rev)
}

// list reads every instance of service through decode.
func list(ctx context.Context, cli *clientv3.Client, service string, serializable bool, decode Decode) (*listing, int64, error) {
	opts := []clientv3.OpOption{clientv3.WithPrefix()}
	if serializable {
		opts = append(opts, clientv3.WithSerializable())
	}
	resp, err := cli.Get(ctx, service+"/", opts...)
	if err != nil {
		return nil, 0, fmt.Errorf("discovery: list %s: %w", service, err)
	}
	l := newListing(decode)
	for _, kv := range resp.Kvs {
		l.put(string(kv.Key), kv.Value)
	}
	return l, resp.Header.Revision, nil
}

// follow applies the watch's events to l from revision rev+1 and
// publishes each batch, until the watch ends. It returns why.
func follow(ctx context.Context, v *view, l *listing, rev int64) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for wr := range v.cli.Watch(wctx, v.service+"/", clientv3.WithPrefix(), clientv3.WithRev(rev+1)) {
		if err := wr.Err(); err != nil {
			return fmt.Errorf("discovery: watch %s from revision %d: %w", v.service, rev+1, err)
		}
		for _, ev := range wr.Events {
			key := string(ev.Kv.Key)
			if ev.Type == clientv3.EventTypePut {
				l.put(key, ev.Kv.Value)
			} else {
				l.del(key)
			}
		}
		rev = wr.Header.Revision
		v.publish(l.state(rev))
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return fmt.Errorf("discovery: watch %s ended", v.service)
}

// record is the value etcd's endpoints manager writes for an instance
// (client/v3/naming/endpoints/internal.Update, which cannot be imported):
// Op 0 adds Addr. Metadata is written as the manager writes it when there
// is none, null, and never read.
type record struct {
	Op       uint8
	Addr     string
	Metadata any
}

// sorted returns the endpoints ordered by key.
func sorted(eps map[string]Endpoint) []Endpoint {
	out := slices.Collect(maps.Values(eps))
	slices.SortFunc(out, func(a, b Endpoint) int { return strings.Compare(a.Key, b.Key) })
	return out
}

package discovery

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/naming/endpoints"
)

// BROKEN (deliberately): a resolver that stops on
// a watch error and never lists again. This is etcd's own gRPC resolver,
// client/v3/naming/resolver, reduced to what it does: it reads updates
// from the endpoints manager's watch channel (NewWatchChannel in
// client/v3/naming/endpoints), whose goroutine returns on the first watch
// error and closes the channel; the resolver's loop then returns too.
// After a compaction — a client that was disconnected resumes its watch
// from a revision etcd has compacted — the resolver is frozen on the set
// it had, with deregistered instances in it and new ones missing, until
// the process restarts. Reported as etcd #9386 and cilium #3011. The
// resolver gives gRPC no error; Done closes here when it stops, so a
// harness can see it.
//
// newStopsOnError returns a Resolver that follows the endpoints manager's
// watch channel and stops when it closes.
func newStopsOnError(cli *clientv3.Client, service string, _ Options) (Resolver, error) {
	if service == "" {
		return nil, ErrBadService
	}
	em, err := endpoints.NewManager(cli, service)
	if err != nil {
		return nil, fmt.Errorf("discovery: endpoints manager for %s: %w", service, err)
	}
	return newView(cli, service, func(ctx context.Context, v *view) {
		var wch endpoints.WatchChannel
		for ctx.Err() == nil { // the first listing is retried, as gRPC would
			var err error
			if wch, err = em.NewWatchChannel(ctx); err == nil {
				break
			}
			v.fail(err)
			pause(ctx, retryPause)
		}
		if wch == nil {
			return
		}
		defer func() {
			for range wch { // let the manager's goroutine finish its send
			}
		}()
		eps := make(map[string]Endpoint)
		for first := true; ; first = false {
			var ups []*endpoints.Update
			ok := true
			if first { // the listing is in the channel already, unless empty
				select {
				case ups, ok = <-wch:
				default:
				}
			} else {
				ups, ok = <-wch
			}
			if !ok {
				return
			}
			for _, up := range ups {
				switch up.Op {
				case endpoints.Add:
					eps[up.Key] = Endpoint{Key: up.Key, Addr: up.Endpoint.Addr}
				case endpoints.Delete:
					delete(eps, up.Key)
				}
			}
			v.publish(State{Endpoints: sorted(eps), Listed: true})
		}
	})
}

package gokit

import (
	"context"
	"fmt"
	"time"

	"github.com/go-kit/kit/sd"
	"github.com/go-kit/kit/sd/etcdv3"
	"github.com/go-kit/log"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/discovery"
)

// NewInstancer resolves service with go-kit's Instancer of the prefix
// "<service>/": every sd.Event it sends becomes the resolver's set.
func NewInstancer(cli *clientv3.Client, service string, _ discovery.Options) (discovery.Resolver, error) {
	cfg, err := cluster.ClientConfigOf(cli)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(cfg.Context)
	kc, err := etcdv3.NewClient(ctx, cfg.Endpoints, etcdv3.ClientOptions{DialOptions: cfg.DialOptions})
	if err != nil {
		cancel()
		return nil, fmt.Errorf("gokit: instancer of %s: %w", service, err)
	}
	inst, err := etcdv3.NewInstancer(kc, service+"/", log.NewNopLogger())
	if err != nil {
		cancel()
		return nil, fmt.Errorf("gokit: instancer of %s: %w", service, err)
	}
	return discovery.Adapt(service, func(ctx context.Context, feed discovery.Feed) error {
		events := make(chan sd.Event, 1)
		inst.Register(events)
		defer stop(inst, events, cancel)
		for {
			select {
			case <-ctx.Done():
				return nil
			case ev := <-events:
				if ev.Err != nil {
					feed.Fail(ev.Err)
					continue
				}
				var addrs []string
				for _, v := range ev.Instances {
					if addr, ok := discovery.AddrOf(v); ok {
						addrs = append(addrs, addr)
					}
				}
				feed.Set(addrs...)
			}
		}
	})
}

// stop ends go-kit's client, then the Instancer: go-kit's Deregister waits
// for the cache's lock, which a broadcast to a listener that stopped
// reading holds, so events are drained meanwhile. Its Stop leaves the
// watch's goroutine blocked for good on its next event (README.md), so
// the watch is given a second to see its context end first.
func stop(inst *etcdv3.Instancer, events chan sd.Event, cancel context.CancelFunc) {
	cancel()
	time.Sleep(time.Second)
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		for range events {
		}
	}()
	inst.Deregister(events)
	inst.Stop()
	close(events)
	<-drained
}

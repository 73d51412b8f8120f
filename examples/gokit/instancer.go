package gokit

import (
	"time"

	"github.com/go-kit/kit/sd"
	"github.com/go-kit/kit/sd/etcdv3"
	"github.com/go-kit/log"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/discovery"
)

// NewInstancer resolves service with go-kit's Instancer of the prefix
// "<service>/": every sd.Event it sends becomes the resolver's set.
func NewInstancer(cli *clientv3.Client, service string, _ discovery.Options) (discovery.Resolver, error) {
	kc, stop, err := client(cli)
	if err != nil {
		return nil, err
	}
	inst, err := etcdv3.NewInstancer(kc, service+"/", log.NewNopLogger())
	if err != nil {
		stop()
		return nil, err
	}
	events := make(chan sd.Event, 1)
	inst.Register(events)
	return discovery.Adapt(service, discovery.Relay(events,
		func(ev sd.Event) ([]string, error) { return discovery.Addrs(ev.Instances), ev.Err },
		func() {
			// go-kit's Stop leaves the watch's goroutine blocked for good
			// on its next event (README.md): end go-kit's client first and
			// give the watch a second to see it.
			stop()
			time.Sleep(time.Second)
			inst.Deregister(events)
			inst.Stop()
		}))
}

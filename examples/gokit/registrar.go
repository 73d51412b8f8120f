package gokit

import (
	"cmp"
	"context"

	"github.com/go-kit/kit/sd/etcdv3"
	"github.com/go-kit/log"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/discovery"
)

// NewRegistrar registers addr under service with go-kit's Registrar: the
// key "<service>/<addr>", the value discovery.Record(addr), on a lease of
// opts.TTL that go-kit's client keeps alive. go-kit's Register logs its
// errors rather than returning them, so the key is read back; go-kit
// tells no one when it stops keeping the lease alive (no Lost), and its
// client has no Close: Close ends it through its context.
func NewRegistrar(cli *clientv3.Client, service, addr string, opts discovery.Options) (discovery.Registrar, error) {
	kc, stop, err := client(cli)
	if err != nil {
		return nil, err
	}
	ttl := cmp.Or(opts.TTL, discovery.DefaultTTL)
	svc := etcdv3.Service{Key: service + "/" + addr, Value: discovery.Record(addr), TTL: etcdv3.NewTTLOption(ttl/3, ttl)}
	kit := etcdv3.NewRegistrar(kc, svc, log.NewNopLogger())
	return &discovery.Funcs{Name: svc.Key, ReadBack: cli, Stop: stop,
		Put:    func(context.Context) error { kit.Register(); return nil },
		Delete: func(context.Context) error { kit.Deregister(); return nil }}, nil
}

// client builds go-kit's etcd client on cli's links.
func client(cli *clientv3.Client) (etcdv3.Client, context.CancelFunc, error) {
	return cluster.LibraryClient(cli, "go-kit", func(cfg clientv3.Config) (etcdv3.Client, error) {
		return etcdv3.NewClient(cfg.Context, cfg.Endpoints, etcdv3.ClientOptions{DialOptions: cfg.DialOptions})
	})
}

package gokit

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/go-kit/kit/sd/etcdv3"
	"github.com/go-kit/log"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/discovery"
)

// registrar is go-kit's Registrar as a discovery.Registrar.
type registrar struct {
	cli    *clientv3.Client // etcdsim's, to read the registration back
	kit    *etcdv3.Registrar
	key    string
	cancel context.CancelFunc // ends go-kit's client
	done   chan struct{}
	once   sync.Once
}

// NewRegistrar registers addr under service with go-kit's Registrar: the
// key "<service>/<addr>", the value discovery.Record(addr), on a lease of
// opts.TTL that go-kit's client keeps alive.
func NewRegistrar(cli *clientv3.Client, service, addr string, opts discovery.Options) (discovery.Registrar, error) {
	cfg, err := cluster.ClientConfigOf(cli)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(cfg.Context)
	kc, err := etcdv3.NewClient(ctx, cfg.Endpoints, etcdv3.ClientOptions{DialOptions: cfg.DialOptions})
	if err != nil {
		cancel()
		return nil, fmt.Errorf("gokit: registrar of %s: %w", addr, err)
	}
	ttl := cmpOr(opts.TTL, discovery.DefaultTTL)
	svc := etcdv3.Service{Key: service + "/" + addr, Value: discovery.Record(addr), TTL: etcdv3.NewTTLOption(ttl/3, ttl)}
	return &registrar{cli: cli, kit: etcdv3.NewRegistrar(kc, svc, log.NewNopLogger()), key: svc.Key, cancel: cancel, done: make(chan struct{})}, nil
}

// Register calls go-kit's Register, which logs its errors rather than
// returning them, and reads the key back to learn whether it worked.
func (r *registrar) Register(ctx context.Context) error {
	r.kit.Register()
	resp, err := r.cli.Get(ctx, r.key)
	if err == nil && len(resp.Kvs) == 0 {
		err = fmt.Errorf("gokit: %s is not in etcd after go-kit's Register", r.key)
	}
	return err
}

func (r *registrar) Key() string           { return r.key }
func (r *registrar) Done() <-chan struct{} { return r.done } // go-kit tells no one when it stops keeping the lease alive

// Close deregisters, as go-kit's Deregister does, and ends go-kit's
// client, which go-kit offers no way to close.
func (r *registrar) Close() error {
	r.once.Do(func() {
		r.kit.Deregister()
		r.cancel()
		close(r.done)
	})
	return nil
}

func cmpOr(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

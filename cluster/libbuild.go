package cluster

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// LibraryClient builds a library's own etcd client on cli's links: build
// gets ClientConfigOf(cli), whose Context ends when cli's process crashes,
// when the cluster closes, or when the returned stop is called — the one
// way to end a client the library offers no Close for. A build that fails
// is stopped, and its error is returned naming lib. A recipe's Close calls
// stop once the library is done with the client.
//
//	kc, stop, err := cluster.LibraryClient(cli, "go-kit", func(cfg clientv3.Config) (etcdv3.Client, error) {
//		return etcdv3.NewClient(cfg.Context, cfg.Endpoints, etcdv3.ClientOptions{DialOptions: cfg.DialOptions})
//	})
func LibraryClient[T any](cli *clientv3.Client, lib string, build func(cfg clientv3.Config) (T, error)) (T, context.CancelFunc, error) {
	var zero T
	if build == nil {
		return zero, nil, fmt.Errorf("cluster: LibraryClient(%s): nil build", lib)
	}
	cfg, err := ClientConfigOf(cli)
	if err != nil {
		return zero, nil, fmt.Errorf("cluster: %s's client: %w", lib, err)
	}
	ctx, stop := context.WithCancel(cfg.Context)
	cfg.Context = ctx
	kc, err := build(cfg)
	if err != nil {
		stop()
		return zero, nil, fmt.Errorf("cluster: %s's client: %w", lib, err)
	}
	return kc, stop, nil
}

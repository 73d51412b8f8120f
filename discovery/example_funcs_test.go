package discovery_test

import (
	"context"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/discovery"
	"github.com/etcdsim/etcdsim/internal/patience"
)

// The examples run their cluster on the real clock, as a program that
// calls cluster.Start outside a test does: an Example has no *testing.T
// for clustertest.Virtual, and what hosts a bubble without one is internal
// to etcdsim, not code a reader could copy. Their deadlines stretch with
// the machine's load (patience.Scale).

// A library's register and deregister — two etcd calls stand for them
// here — make a Registrar with Funcs.
func ExampleFuncs() {
	ctx, cancel := context.WithTimeout(context.Background(), patience.Scale(time.Minute))
	defer cancel()
	c, err := cluster.Start(ctx, cluster.Config{})
	must(err)
	defer c.Close()
	cli, err := c.Client("app")
	must(err)

	key := "echo/10.0.0.1:1"
	reg := &discovery.Funcs{Name: key, ReadBack: cli,
		Put: func(ctx context.Context) error {
			_, err := cli.Put(ctx, key, discovery.Record("10.0.0.1:1"))
			return err
		},
		Delete: func(ctx context.Context) error {
			_, err := cli.Delete(ctx, key)
			return err
		}}
	must(reg.Register(ctx))
	fmt.Println("registered:", reg.Key())

	must(reg.Close())
	resp, err := cli.Get(ctx, key)
	must(err)
	fmt.Println("after Close, keys left:", len(resp.Kvs))
	// Output:
	// registered: echo/10.0.0.1:1
	// after Close, keys left: 0
}

// A library that sends its listings on a channel — one listing of the
// prefix stands for its watcher here — makes a Resolver with Relay.
func ExampleRelay() {
	ctx, cancel := context.WithTimeout(context.Background(), patience.Scale(time.Minute))
	defer cancel()
	c, err := cluster.Start(ctx, cluster.Config{})
	must(err)
	defer c.Close()
	cli, err := c.Client("app")
	must(err)
	_, err = cli.Put(ctx, "echo/10.0.0.1:1", discovery.Record("10.0.0.1:1"))
	must(err)

	listings := make(chan []string, 1)
	resp, err := cli.Get(ctx, "echo/", clientv3.WithPrefix())
	must(err)
	var values []string
	for _, kv := range resp.Kvs {
		values = append(values, string(kv.Value))
	}
	listings <- values
	res, err := discovery.Adapt("echo", discovery.Relay(listings,
		func(values []string) ([]string, error) { return discovery.Addrs(values), nil },
		func() {})) // the library's stop
	must(err)
	defer res.Close()
	for s := range res.Observe(ctx) {
		if s.Listed {
			fmt.Println("resolved:", s.Addrs())
			break
		}
	}
	// Output:
	// resolved: [10.0.0.1:1]
}

package discovery_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/internal/patience"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// A registrar that dials etcd itself, as most service frameworks do, is
// given the endpoints of a named client; a fault aimed at that client then
// reaches it. Isolated, it can no longer keep its lease alive, and its
// address disappears.
//
// The example runs its cluster on the real clock: the registrar dials etcd
// with a client of its own, and ClientEndpoints gives out loopback
// addresses, which only the real clock has (on the virtual one its network
// is in memory). Its deadline stretches with the machine's load
// (patience.Scale).
func Example_clientEndpoints() {
	ctx, cancel := context.WithTimeout(context.Background(), patience.Scale(time.Minute))
	defer cancel()
	c, err := cluster.Start(ctx, cluster.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	endpoints, err := c.ClientEndpoints("svc")
	if err != nil {
		log.Fatal(err)
	}
	reg, err := startOwnRegistrar(ctx, endpoints, "svc/addr", "10.0.0.7:8080")
	if err != nil {
		log.Fatal(err)
	}
	defer reg.Close()

	reader, err := c.Client("reader")
	if err != nil {
		log.Fatal(err)
	}
	resp, err := reader.Get(ctx, "svc/addr")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("registered: svc/addr = %s\n", resp.Kvs[0].Value)

	if err := c.Isolate("svc"); err != nil {
		log.Fatal(err)
	}
	for wr := range reader.Watch(ctx, "svc/addr", clientv3.WithRev(resp.Header.Revision+1)) {
		if len(wr.Events) > 0 && wr.Events[0].Type == clientv3.EventTypeDelete {
			fmt.Println("svc isolated: its lease expired and svc/addr is gone")
			break
		}
	}
	// Output:
	// registered: svc/addr = 10.0.0.7:8080
	// svc isolated: its lease expired and svc/addr is gone
}

// ownRegistrar is what a framework's registry does with nothing but etcd's
// endpoints: its own client, a lease, the address put on it, and the lease
// kept alive until Close.
type ownRegistrar struct{ cli *clientv3.Client }

func startOwnRegistrar(ctx context.Context, endpoints []string, key, addr string) (*ownRegistrar, error) {
	cli, err := clientv3.New(clientv3.Config{Endpoints: endpoints, Logger: zap.NewNop()})
	if err != nil {
		return nil, err
	}
	lease, err := cli.Grant(ctx, 1)
	if err == nil {
		_, err = cli.Put(ctx, key, addr, clientv3.WithLease(lease.ID))
	}
	var acks <-chan *clientv3.LeaseKeepAliveResponse
	if err == nil {
		acks, err = cli.KeepAlive(context.Background(), lease.ID)
	}
	if err != nil {
		cli.Close()
		return nil, err
	}
	go func() {
		for range acks { // closed when the lease is lost or the client closes
		}
	}()
	return &ownRegistrar{cli: cli}, nil
}

func (r *ownRegistrar) Close() error { return r.cli.Close() }

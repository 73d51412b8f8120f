package lease_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/internal/lease"
)

// A worker announces itself under a lease and works until the lease may
// be gone. An operator revokes the lease; the worker's guard notices at
// its next renewal and says why.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := cluster.Start(ctx, cluster.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	worker, _ := c.Client("worker")
	operator, _ := c.Client("operator")

	_, err = lease.Grant(ctx, worker, 1500*time.Millisecond)
	fmt.Println(err)

	g, err := lease.Grant(ctx, worker, 2*time.Second)
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close(ctx)
	if _, err := worker.Put(ctx, "/workers/w1", "busy", clientv3.WithLease(g.ID())); err != nil {
		log.Fatal(err)
	}
	fmt.Println("alive:", g.Alive())

	if _, err := operator.Revoke(ctx, g.ID()); err != nil {
		log.Fatal(err)
	}
	select {
	case <-g.Done(): // stop working
	case <-ctx.Done():
		log.Fatal("the guard did not notice")
	}
	fmt.Println("lost:", errors.Is(g.Err(), lease.ErrLost), errors.Is(g.Err(), rpctypes.ErrLeaseNotFound))
	fmt.Println("close:", g.Close(ctx)) // a lease already gone is no error
	// Output:
	// lease: bad TTL: 1.5s is not a whole number of seconds, which is what etcd grants: use 1s or 2s
	// alive: true
	// lost: true true
	// close: <nil>
}

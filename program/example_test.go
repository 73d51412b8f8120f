package program_test

import (
	"context"
	"fmt"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/program"
)

// A lock whose client is a program of its own: here this test binary
// speaking the protocol on concurrency.Mutex. The program is handed the
// client's own endpoints, and a second acquire waits its turn. The real
// clock: the program dials etcd through real sockets.
func ExampleLock() {
	ctx := context.Background()
	c, err := cluster.Start(ctx, cluster.Config{Clock: cluster.ClockReal})
	if err != nil {
		panic(err)
	}
	defer c.Close()
	cli, err := c.Client("c1")
	if err != nil {
		panic(err)
	}
	r := program.Lock("go-mutex", adapterArgv("mutex")...)
	l, err := r.New(cli, "L", lock.Options{TTL: 2 * time.Second})
	if err != nil {
		panic(err)
	}
	defer l.(interface{ Close() error }).Close()

	h, err := l.Lock(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println("held, with a fencing token:", h.Token() > 0)
	wctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	_, err = l.Lock(wctx)
	cancel()
	fmt.Println("a second holder waits:", err != nil)
	fmt.Println("released:", h.Unlock(ctx) == nil)
	// Output:
	// held, with a fencing token: true
	// a second holder waits: true
	// released: true
}

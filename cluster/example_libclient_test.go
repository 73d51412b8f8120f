package cluster_test

import (
	"context"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/internal/patience"
)

// A library that builds its own etcd client from a configuration —
// clientv3.New stands for it here — gets one on the named client's links.
// Crashing the named client ends the library's client with its process.
//
// The example runs a cluster on the real clock: an Example has no
// *testing.T, so it cannot enter a synctest bubble. Its deadline stretches
// with the machine's load (patience.Scale).
func ExampleLibraryClient() {
	ctx, cancel := context.WithTimeout(context.Background(), patience.Scale(time.Minute))
	defer cancel()
	c, err := cluster.Start(ctx, cluster.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	cli, _ := c.Client("app")
	cli.Put(ctx, "greeting", "hello")

	lib, stop, err := cluster.LibraryClient(cli, "mylib", clientv3.New)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()
	defer lib.Close()
	resp, err := lib.Get(ctx, "greeting")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("the library read:", string(resp.Kvs[0].Value))

	c.CrashClient("app")
	fmt.Println("its client ended with the process:", lib.Ctx().Err() != nil)
	// Output:
	// the library read: hello
	// its client ended with the process: true
}

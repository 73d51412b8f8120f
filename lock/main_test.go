package lock

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		// etcd's embedded server serves the lock API through an in-process
		// client (embed/serve.go: v3client.New) that it never closes. The
		// first server-side Lock starts a lease keepalive on that client
		// (v3lock.lockServer.Lock → concurrency.NewSession), and its
		// goroutines outlive the server. Not ours to stop: every client
		// this package's tests create belongs to a cluster that closes it.
		goleak.IgnoreTopFunction("go.etcd.io/etcd/client/v3.(*lessor).sendKeepAliveLoop"),
		goleak.IgnoreTopFunction("go.etcd.io/etcd/client/v3.(*lessor).deadlineLoop"),
		goleak.IgnoreTopFunction("go.etcd.io/etcd/server/v3/etcdserver/api/v3rpc.(*LeaseServer).LeaseKeepAlive"),
		goleak.IgnoreTopFunction("go.etcd.io/etcd/server/v3/proxy/grpcproxy/adapter.(*chanStream).RecvMsg"),
	)
}

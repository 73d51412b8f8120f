package election_test

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, etcdElectionServiceLeaks()...)
}

// etcdElectionServiceLeaks ignores goroutines that etcd itself leaves
// behind once a member has served its election service: embed builds an
// in-process client for the v3election and v3lock servers (embed/serve.go,
// v3client.New) and never closes it, and every election call opens a
// concurrency.Session on it, which starts that client's lease keep-alive
// loops. They live in the member, not in this package, and outlive
// Cluster.Close. Only these frames are ignored; a lessor of one of our own
// clients would still be caught if it were left open, by its other
// goroutines over a real gRPC stream.
func etcdElectionServiceLeaks() []goleak.Option {
	return []goleak.Option{
		goleak.IgnoreAnyFunction("go.etcd.io/etcd/server/v3/proxy/grpcproxy/adapter.newPipeStream.func1"),
		goleak.IgnoreAnyFunction("go.etcd.io/etcd/server/v3/proxy/grpcproxy/adapter.(*ls2lcClientStream).Recv"),
		goleak.IgnoreAnyFunction("go.etcd.io/etcd/server/v3/proxy/grpcproxy/adapter.(*ls2lcServerStream).Recv"),
		goleak.IgnoreTopFunction("go.etcd.io/etcd/client/v3.(*lessor).sendKeepAliveLoop"),
		goleak.IgnoreTopFunction("go.etcd.io/etcd/client/v3.(*lessor).deadlineLoop"),
	}
}

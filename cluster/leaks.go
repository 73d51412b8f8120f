package cluster

import "go.uber.org/goleak"

// EtcdLeaks returns goleak options that ignore the goroutines etcd itself
// leaves behind, and nothing else, for use with goleak.VerifyTestMain or
// goleak.VerifyNone in tests that use the cluster.
//
// embed builds an in-process client for its server-side lock and election
// services (embed/serve.go, v3client.New, on context.Background) and never
// closes it. Every v3lock or v3election call opens a session on that
// client, which starts its lease keep-alive loops; they outlive the member
// and Cluster.Close, and no API reaches them. Only those frames are
// ignored: a lessor of one of your own clients that you forgot to close
// still shows, by its other goroutines over a real gRPC stream.
func EtcdLeaks() []goleak.Option {
	return []goleak.Option{
		goleak.IgnoreAnyFunction("go.etcd.io/etcd/server/v3/proxy/grpcproxy/adapter.newPipeStream.func1"),
		goleak.IgnoreAnyFunction("go.etcd.io/etcd/server/v3/proxy/grpcproxy/adapter.(*ls2lcClientStream).Recv"),
		goleak.IgnoreAnyFunction("go.etcd.io/etcd/server/v3/proxy/grpcproxy/adapter.(*ls2lcServerStream).Recv"),
		goleak.IgnoreTopFunction("go.etcd.io/etcd/client/v3.(*lessor).sendKeepAliveLoop"),
		goleak.IgnoreTopFunction("go.etcd.io/etcd/client/v3.(*lessor).deadlineLoop"),
		goleak.IgnoreTopFunction("go.etcd.io/etcd/server/v3/etcdserver/api/v3rpc.(*LeaseServer).LeaseKeepAlive"),
		goleak.IgnoreTopFunction("go.etcd.io/etcd/server/v3/proxy/grpcproxy/adapter.(*chanStream).RecvMsg"),
	}
}

package cluster

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// askedProbe counts the calls to Context of the streams it wraps, and
// whether any came before the opener had the stream.
type askedProbe struct {
	opened atomic.Bool  // the opener has the stream
	early  atomic.Int32 // Context calls before that
}

type probedStream struct {
	grpc.ClientStream
	p *askedProbe
}

func (s probedStream) Context() context.Context {
	if !s.p.opened.Load() {
		s.p.early.Add(1)
	}
	return s.ClientStream.Context()
}

// option wraps each stream innermost, under the dial options before it.
func (p *askedProbe) option() grpc.DialOption {
	return grpc.WithChainStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
		s, err := streamer(ctx, desc, cc, method, opts...)
		if err != nil {
			return nil, err
		}
		return probedStream{ClientStream: s, p: p}, nil
	})
}

// On the virtual clock every stream opened with the cluster's dial options
// — the harness's clients' and a library's (ClientConfigOf) — is committed
// before its opener has it, by asking it for its context: gRPC then has no
// transparent retry left to run under the stream's mutex, the wait that
// froze bubbles. The stream works as before.
func TestStreamsAreCommittedAsTheyOpen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New(t, Config{Members: 1})
		lib, err := ClientConfigOf(client(t, c, "lib"))
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name string
			opts []grpc.DialOption
		}{
			{"Cluster.DialOptions", c.DialOptions()},
			{"ClientConfigOf", lib.DialOptions},
		} {
			p := &askedProbe{}
			target := "passthrough:///" + strings.TrimPrefix(c.Members()[0].Endpoint(), "http://")
			if tc.name == "ClientConfigOf" {
				target = "passthrough:///" + strings.TrimPrefix(lib.Endpoints[0], "http://")
			}
			cc, err := grpc.NewClient(target, append(tc.opts, grpc.WithTransportCredentials(insecure.NewCredentials()), p.option())...)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			leases := pb.NewLeaseClient(cc)
			stream, err := leases.LeaseKeepAlive(ctx)
			p.opened.Store(true)
			if err != nil {
				t.Fatalf("%s: open a keep-alive stream: %v", tc.name, err)
			}
			if p.early.Load() == 0 {
				t.Errorf("%s: the keep-alive stream reached its opener uncommitted: nothing asked for its context", tc.name)
			}
			g, err := leases.LeaseGrant(ctx, &pb.LeaseGrantRequest{TTL: 5})
			if err != nil {
				t.Fatalf("%s: grant: %v", tc.name, err)
			}
			if err := stream.Send(&pb.LeaseKeepAliveRequest{ID: g.ID}); err != nil {
				t.Fatalf("%s: send a keep-alive: %v", tc.name, err)
			}
			if resp, err := stream.Recv(); err != nil || resp.ID != g.ID || resp.TTL != 5 {
				t.Errorf("%s: keep-alive answered %v, %v; want lease %x with TTL 5", tc.name, resp, err, g.ID)
			}
			cancel()
			cc.Close()
		}
	})
}

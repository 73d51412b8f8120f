package discovery

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// Backend is an instance of a tiny gRPC echo service, listening on a
// kernel-chosen loopback port, that answers every call with its name. It
// is what scenarios register and call. It uses a hand-written service
// descriptor and a codec of raw bytes, so it needs no generated code.
type Backend struct {
	name  string
	lis   net.Listener
	srv   *grpc.Server
	calls atomic.Int64

	wg     sync.WaitGroup
	closed sync.Once
	err    error // from Serve, set before wg.Done
}

// StartBackend starts a Backend called name on 127.0.0.1:0.
func StartBackend(name string) (*Backend, error) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("discovery: backend %s: %w", name, err)
	}
	return StartBackendOn(name, lis), nil
}

// StartBackendOn starts a Backend called name on lis, which it closes when
// it closes: on a cluster's network, say (cluster.Cluster.ListenService),
// where the cluster's dial options reach it.
func StartBackendOn(name string, lis net.Listener) *Backend {
	b := &Backend{name: name, lis: lis, srv: grpc.NewServer(grpc.ForceServerCodec(rawCodec{}))}
	b.srv.RegisterService(&echoService, b)
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		if err := b.srv.Serve(lis); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
			b.err = fmt.Errorf("discovery: backend %s: %w", name, err)
		}
	}()
	return b
}

// Name returns the name the backend answers with.
func (b *Backend) Name() string { return b.name }

// Addr returns the host:port the backend listens on.
func (b *Backend) Addr() string { return b.lis.Addr().String() }

// Calls returns how many calls the backend has answered.
func (b *Backend) Calls() int64 { return b.calls.Load() }

// Close stops the backend: calls in flight get up to five seconds to
// finish, then their connections are closed. It is idempotent.
func (b *Backend) Close() error {
	b.closed.Do(func() {
		stopped := make(chan struct{})
		go func() {
			b.srv.GracefulStop()
			close(stopped)
		}()
		t := time.NewTimer(5 * time.Second)
		select {
		case <-stopped:
		case <-t.C:
			b.srv.Stop() // a call still in flight: cut it off
			<-stopped
		}
		t.Stop()
		b.wg.Wait()
	})
	return b.err
}

// Echo calls the echo service over conn with msg and returns the name of
// the instance that answered and the message it echoed.
func Echo(ctx context.Context, conn grpc.ClientConnInterface, msg string) (instance, echoed string, err error) {
	in, out := []byte(msg), []byte(nil)
	if err := conn.Invoke(ctx, echoMethod, &in, &out, grpc.ForceCodec(rawCodec{})); err != nil {
		return "", "", fmt.Errorf("discovery: echo: %w", err)
	}
	instance, echoed, _ = strings.Cut(string(out), "\n")
	return instance, echoed, nil
}

// Dial returns a gRPC client of "etcd:///<service>" that resolves with r
// and balances round-robin over the instances. Further options are
// appended.
func Dial(r Resolver, service string, opts ...grpc.DialOption) (*grpc.ClientConn, error) {
	opts = append([]grpc.DialOption{
		grpc.WithResolvers(r),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultServiceConfig(`{"loadBalancingConfig": [{"round_robin": {}}]}`),
	}, opts...)
	cc, err := grpc.NewClient(Scheme+":///"+service, opts...)
	if err != nil {
		return nil, fmt.Errorf("discovery: dial %s: %w", service, err)
	}
	return cc, nil
}

const echoMethod = "/etcdsim.discovery.Echo/Echo"

// echoService describes the service by hand: one unary method.
var echoService = grpc.ServiceDesc{
	ServiceName: "etcdsim.discovery.Echo",
	HandlerType: (*any)(nil),
	Methods: []grpc.MethodDesc{{
		MethodName: "Echo",
		Handler: func(srv any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
			var in []byte
			if err := dec(&in); err != nil {
				return nil, err
			}
			b := srv.(*Backend)
			b.calls.Add(1)
			out := []byte(b.name + "\n" + string(in))
			return &out, nil
		},
	}},
}

// rawCodec sends a *[]byte as it is.
type rawCodec struct{}

func (rawCodec) Name() string { return "etcdsim-raw" }

func (rawCodec) Marshal(v any) ([]byte, error) {
	p, ok := v.(*[]byte)
	if !ok {
		return nil, fmt.Errorf("discovery: raw codec cannot marshal %T", v)
	}
	return *p, nil
}

func (rawCodec) Unmarshal(data []byte, v any) error {
	p, ok := v.(*[]byte)
	if !ok {
		return fmt.Errorf("discovery: raw codec cannot unmarshal into %T", v)
	}
	*p = append((*p)[:0], data...)
	return nil
}

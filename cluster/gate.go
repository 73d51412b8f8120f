package cluster

import (
	"context"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// gateWait is how long a kill waits for the client requests a member is
// serving to return before it stops the member anyway.
const gateWait = 2 * time.Second

// requestGate lets a member's client requests finish before the member is
// stopped under them. etcd's HardStop closes the backend while a request
// already past its checks may still be reading it — a read-only
// transaction between its read index and its range, say — and that read
// then dereferences a closed bbolt transaction and takes the whole process
// down. A process that really crashes has no such window. The gate sits in
// front of every unary handler (a server option, on both clocks): once
// closed, it turns new requests away and waits for those inside, whose
// contexts end with the connections a kill resets, before the stop.
type requestGate struct {
	mu     sync.Mutex
	closed bool
	inside sync.WaitGroup
}

// serverOptions installs the gate in a gRPC server.
func (g *requestGate) serverOptions() []grpc.ServerOption {
	return []grpc.ServerOption{grpc.ChainUnaryInterceptor(g.unary)}
}

func (g *requestGate) unary(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return nil, status.Error(codes.Unavailable, "etcdsim: the member is going down")
	}
	g.inside.Add(1)
	g.mu.Unlock()
	defer g.inside.Done()
	return handler(ctx, req)
}

// close turns new requests away and waits, up to gateWait, for those
// inside to return.
func (g *requestGate) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	done := make(chan struct{})
	go func() {
		g.inside.Wait()
		close(done)
	}()
	t := time.NewTimer(gateWait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

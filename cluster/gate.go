package cluster

import (
	"context"
	"runtime/pprof"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/peer"
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
	mu     sync.Mutex // guards closed, held and streams
	closed bool
	// streams counts the open streams (lease keepalives, watches) by the
	// address of the connection they came on, and method: a client's
	// streams stay on the connection they were opened on (pinned.go).
	streams map[streamKey]int
	// held is non-nil while the member is frozen (Member.Freeze): requests
	// wait before their handler until it is closed, at the thaw.
	held   chan struct{}
	inside sync.WaitGroup
	// labels mark the goroutines of the member's streams (resources.go);
	// set before the server starts, read only after.
	labels pprof.LabelSet
}

// hold makes new requests wait before their handler until release, as the
// requests that reach a stopped process wait in its socket buffers.
func (g *requestGate) hold() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.held == nil {
		g.held = make(chan struct{})
	}
}

// release lets the requests that hold kept waiting through.
func (g *requestGate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.held != nil {
		close(g.held)
		g.held = nil
	}
}

// serverOptions installs the gate in a gRPC server.
func (g *requestGate) serverOptions() []grpc.ServerOption {
	return []grpc.ServerOption{grpc.ChainUnaryInterceptor(g.unary), grpc.ChainStreamInterceptor(g.stream)}
}

// streamKey is an open stream's connection (the remote address the member
// sees) and method.
type streamKey struct{ addr, method string }

// stream counts the stream while it is open; it holds nothing back.
func (g *requestGate) stream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	p, ok := peer.FromContext(ss.Context())
	if !ok || p.Addr == nil {
		return handler(srv, ss)
	}
	k := streamKey{p.Addr.String(), info.FullMethod}
	g.mu.Lock()
	if g.streams == nil {
		g.streams = make(map[streamKey]int)
	}
	g.streams[k]++
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		if g.streams[k]--; g.streams[k] <= 0 {
			delete(g.streams, k)
		}
		g.mu.Unlock()
	}()
	return labeled(ss.Context(), g.labels, func() error { return handler(srv, ss) })
}

// openStreams returns the connections with an open stream of method.
func (g *requestGate) openStreams(method string) []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []string
	for k := range g.streams {
		if k.method == method {
			out = append(out, k.addr)
		}
	}
	return out
}

func (g *requestGate) unary(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return nil, status.Error(codes.Unavailable, "etcdsim: the member is going down")
	}
	g.inside.Add(1)
	held := g.held
	g.mu.Unlock()
	defer g.inside.Done()
	if held != nil {
		select {
		case <-held:
		case <-ctx.Done():
			return nil, status.FromContextError(ctx.Err()).Err()
		}
	}
	return handler(ctx, req)
}

// close turns new requests away and waits, up to gateWait, for those
// inside to return.
func (g *requestGate) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	g.release() // a frozen member that is killed lets its waiting requests fail
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

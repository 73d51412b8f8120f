package libdial

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"sync"

	"google.golang.org/grpc"
)

// ErrStrayDial is wrapped by the error a library's client gets, and that
// its owner records, when it dials an address the harness did not give
// it.
var ErrStrayDial = errors.New("cluster: dial of an address the harness did not give")

// Owner is what a Life needs of the named client it belongs to.
type Owner struct {
	// Name is the named client's name, for errors.
	Name string
	// Dial dials an address of the client's links on its cluster's
	// network.
	Dial func(ctx context.Context, addr string) (net.Conn, error)
	// Stray records a dial refused because the harness did not give its
	// address; nil records nothing.
	Stray func(error)
	// Crashed is wrapped by the error of a dial made, after the life
	// ended, by a connection of the ended life: a process that crashed
	// dials nothing.
	Crashed error
}

// Life is what the libraries' clients of one named client share for one
// life of its process: a context that ends, and the gRPC connections that
// close, when the process crashes or the cluster closes. The zero Life is
// not usable; NewLife makes one.
type Life struct {
	owner  Owner
	serial int64 // numbers the life in the process, for Endpoints' addresses
	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex // guards conns and ended
	conns  map[*grpc.ClientConn]struct{}
	ended  bool
}

// NewLife starts a life of o's process.
func NewLife(o Owner) *Life {
	l := &Life{owner: o, serial: lifeSerial.Add(1), conns: make(map[*grpc.ClientConn]struct{})}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	return l
}

// Context ends when the life does.
func (l *Life) Context() context.Context { return l.ctx }

// track remembers cc, or closes it at once if the life has ended.
func (l *Life) track(cc *grpc.ClientConn) {
	l.mu.Lock()
	if l.ended {
		l.mu.Unlock()
		cc.Close()
		return
	}
	l.conns[cc] = struct{}{}
	l.mu.Unlock()
}

// End cancels the life's context, forgets its addresses and closes its
// connections. It marks the life ended before it forgets the addresses,
// so that Endpoints routes none of an ended life. It is safe to call more
// than once.
func (l *Life) End() {
	l.cancel()
	l.mu.Lock()
	l.ended = true
	conns := l.conns
	l.conns = nil
	l.mu.Unlock()
	dropRoutes(l)
	for cc := range conns {
		cc.Close()
	}
}

// Ended says whether End has run.
func (l *Life) Ended() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ended
}

// Options are the dial options that hand every connection a library
// dials with them to l, which closes it when it ends: gRPC shows a
// client's connection to its interceptors only.
func (l *Life) Options() []grpc.DialOption {
	return []grpc.DialOption{l.unary(), l.stream()}
}

func (l *Life) unary() grpc.DialOption {
	return grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoke grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		l.track(cc)
		return invoke(ctx, method, req, reply, cc, opts...)
	})
}

func (l *Life) stream() grpc.DialOption {
	return grpc.WithChainStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, stream grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
		l.track(cc)
		return stream(ctx, desc, cc, method, opts...)
	})
}

// GuardedDialer dials over the owner's network the addresses of eps and
// refuses any other, with an error wrapping ErrStrayDial that it records.
func (l *Life) GuardedDialer(eps []string) func(context.Context, string) (net.Conn, error) {
	var allowed []string
	for _, ep := range eps {
		if u, err := url.Parse(ep); err == nil && u.Host != "" {
			allowed = append(allowed, u.Host)
		}
	}
	return func(ctx context.Context, addr string) (net.Conn, error) {
		if !slices.Contains(allowed, addr) {
			err := fmt.Errorf("%w: a library's client of %q dialed %s; the harness gave it %v (ClientConfigOf's Endpoints): build the client from that configuration rather than from addresses of its own", ErrStrayDial, l.owner.Name, addr, eps)
			l.stray(err)
			return nil, err
		}
		return l.owner.Dial(ctx, addr)
	}
}

// stray records a refused dial with the owner.
func (l *Life) stray(err error) {
	if l.owner.Stray != nil {
		l.owner.Stray(err)
	}
}

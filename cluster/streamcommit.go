package cluster

import (
	"context"

	"google.golang.org/grpc"
)

// commitStreams is a dial option for the virtual clock: every stream a
// client opens is committed as it opens, so gRPC will not retry it
// transparently later.
//
// Why: a stream whose headers never left (its connection reset as it
// opened) is retried by gRPC under the stream's mutex, and with clientv3's
// wait-for-ready that retry waits for a new connection — which, while the
// link is refused or its backoff runs, needs the clock to move. clientv3's
// keep-alive sender meanwhile asks the stream for its context or sends on
// it, and waits on that mutex; a mutex wait is not durable, so the bubble's
// clock never moves and the run freezes (docs/virtual-time.md). Asking a
// stream for its context commits it, which clientv3 does anyway an instant
// later; doing it here, while no other goroutine has the stream, leaves no
// retry to hold the mutex. The opening itself keeps its transparent
// retries: they run in the opening goroutine, before anyone else can wait.
// A committed stream whose connection fails returns the error to its
// caller, which clientv3 handles by opening a new stream.
func commitStreams() grpc.DialOption {
	return grpc.WithChainStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
		s, err := streamer(ctx, desc, cc, method, opts...)
		if err == nil {
			s.Context() // commits the stream's attempt
		}
		return s, err
	})
}

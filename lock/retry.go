package lock

import (
	"context"
	"errors"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// retryIdempotent runs op until it returns nil or an error that is not
// transient, or ctx ends. Only for ops whose repetition is harmless: a
// delete or a put guarded by a key's create revision, a lease revoke,
// the server's unlock of a key named after its lease. The client
// itself does not retry writes after a connection broke mid-request (the
// first request after a partition heals often does), because it cannot
// know whether the write was applied; for these ops it does not matter.
func retryIdempotent(ctx context.Context, op func(context.Context) error) error {
	backoff := 20 * time.Millisecond
	for {
		err := op(ctx)
		if err == nil || !transient(err) {
			return err
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		backoff = min(2*backoff, time.Second)
	}
}

// transientErrs say a request may not have reached a working leader.
var transientErrs = []error{rpctypes.ErrNoLeader, rpctypes.ErrLeaderChanged, rpctypes.ErrTimeout,
	rpctypes.ErrTimeoutDueToLeaderFail, rpctypes.ErrTimeoutDueToConnectionLost}

// transient reports whether err says the request may simply not have
// reached a working leader.
func transient(err error) bool {
	st, _ := status.FromError(err)
	switch st.Code() {
	case codes.Unavailable:
		return true
	case codes.Unknown:
		// The server-side lock API answers with the errors of the client
		// it runs inside the server, which gRPC turns into Unknown with
		// the error's text: match that text.
		for _, e := range transientErrs {
			if st.Message() == e.Error() {
				return true
			}
		}
	}
	for _, e := range transientErrs {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

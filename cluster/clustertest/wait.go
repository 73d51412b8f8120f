package clustertest

import (
	"context"
	"errors"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/internal/patience"
)

// Patience bounds every wait a test makes on an idle machine: long enough
// for a loaded 2-core one, short enough that a test fails instead of
// hanging. Context scales it by how slow this machine is now (the race
// detector, its load: see internal/patience), for a test on the real clock;
// on the virtual clock the deadline costs no wall time whatever it is.
const Patience = 90 * time.Second

// Context returns a context that ends when the test does or after
// Patience, scaled by how slow the machine is (patience.Scale).
func Context(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience.Scale(Patience))
	t.Cleanup(cancel)
	return ctx
}

// Eventually calls check until it returns nil, giving each call up to two
// seconds (scaled by patience.Scale), and fails the test with check's last error once ctx ends.
func Eventually(t testing.TB, ctx context.Context, what string, check func(ctx context.Context) error) {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		cctx, cancel := context.WithTimeout(ctx, patience.Scale(2*time.Second))
		err := check(cctx)
		cancel()
		if err == nil {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("waiting until %s: %v", what, errors.Join(err, ctx.Err()))
		case <-tick.C:
		}
	}
}

// WaitKeys waits until exactly n keys exist under prefix. It watches the
// prefix between reads rather than polling.
func WaitKeys(t testing.TB, ctx context.Context, cli *clientv3.Client, prefix string, n int) {
	t.Helper()
	for {
		resp, err := cli.Get(ctx, prefix, clientv3.WithPrefix(), clientv3.WithCountOnly())
		if err != nil {
			t.Fatalf("waiting for %d keys under %s: %v", n, prefix, err)
		}
		if resp.Count == int64(n) {
			return
		}
		wctx, cancel := context.WithCancel(ctx)
		<-cli.Watch(wctx, prefix, clientv3.WithPrefix(), clientv3.WithRev(resp.Header.Revision+1))
		cancel()
		if ctx.Err() != nil {
			t.Fatalf("waiting for %d keys under %s, have %d: %v", n, prefix, resp.Count, ctx.Err())
		}
	}
}

// Closed reports whether ch is closed now, without waiting.
func Closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

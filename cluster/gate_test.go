package cluster

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// A closing gate waits for the request inside, then turns new ones away;
// a request that never returns holds the close up for gateWait only.
func TestRequestGate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := &requestGate{}
		release := make(chan struct{})
		served := make(chan error, 1)
		go func() {
			_, err := g.unary(context.Background(), nil, nil, func(context.Context, any) (any, error) {
				<-release
				return nil, nil
			})
			served <- err
		}()
		synctest.Wait() // the request is inside
		closed := make(chan struct{})
		go func() {
			g.close()
			close(closed)
		}()
		synctest.Wait()
		select {
		case <-closed:
			t.Fatal("close returned while a request was inside")
		default:
		}
		_, err := g.unary(context.Background(), nil, nil, func(context.Context, any) (any, error) {
			t.Error("a request reached its handler through a closing gate")
			return nil, nil
		})
		if status.Code(err) != codes.Unavailable {
			t.Errorf("a request at a closing gate: %v, want Unavailable", err)
		}
		close(release)
		<-closed
		if err := <-served; err != nil {
			t.Errorf("the request inside: %v", err)
		}

		stuck := &requestGate{}
		block := make(chan struct{})
		go stuck.unary(context.Background(), nil, nil, func(context.Context, any) (any, error) { //nolint:errcheck // the handler never returns in time
			<-block
			return nil, nil
		})
		synctest.Wait()
		start := time.Now()
		stuck.close()
		if waited := time.Since(start); waited != gateWait {
			t.Errorf("close waited %v for a request that never returned, want gateWait (%v)", waited, gateWait)
		}
		close(block)
	})
}

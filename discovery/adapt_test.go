package discovery_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/etcdsim/etcdsim/discovery"
)

// A library's follower adapted with Adapt feeds gRPC: a call reaches the
// instance it set, Observe sees the set, and Close ends the follower.
func TestAdaptFeedsGRPC(t *testing.T) {
	b, err := discovery.StartBackend("a")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	stopped := make(chan struct{})
	res, err := discovery.Adapt("echo", func(ctx context.Context, feed discovery.Feed) error {
		defer close(stopped)
		feed.Set(b.Addr())
		<-ctx.Done()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cc, err := discovery.Dial(res, "echo")
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if inst, _, err := discovery.Echo(ctx, cc, "hi"); err != nil || inst != "a" {
		t.Fatalf("Echo = %q, %v; want instance a", inst, err)
	}
	for s := range res.Observe(ctx) {
		if s.Listed && len(s.Endpoints) == 1 && s.Endpoints[0].Addr == b.Addr() {
			break
		}
	}
	if err := res.Close(); err != nil {
		t.Fatal(err)
	}
	if err := res.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	select {
	case <-stopped:
	default:
		t.Error("Close returned before the Follow did")
	}
	select {
	case <-res.Done():
	default:
		t.Error("Done open after Close")
	}
}

// A Follow that fails, panics or will not stop is the recipe's fault, said
// so in State's Err or Close's error; nothing hangs.
func TestAdaptBadFollow(t *testing.T) {
	tests := []struct {
		name   string
		follow discovery.Follow
		want   string
	}{
		{"fails", func(ctx context.Context, feed discovery.Feed) error {
			feed.Set("10.0.0.1:1")
			return errors.New("lost the watch")
		}, "lost the watch"},
		{"panics", func(ctx context.Context, feed discovery.Feed) error { panic("boom") }, "panicked: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := discovery.Adapt("svc", tt.follow)
			if err != nil {
				t.Fatal(err)
			}
			<-res.Done()
			if s := res.State(); s.Err == nil || !strings.Contains(s.Err.Error(), tt.want) {
				t.Errorf("State().Err = %v, want one saying %q", s.Err, tt.want)
			}
			if err := res.Close(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Close = %v, want one saying %q", err, tt.want)
			}
		})
	}
	t.Run("blocks", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			release := make(chan struct{})
			res, err := discovery.Adapt("svc", func(ctx context.Context, feed discovery.Feed) error {
				<-release // ignores ctx
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			err = res.Close()
			close(release)
			if err == nil || !strings.Contains(err.Error(), "has not returned") {
				t.Errorf("Close = %v, want one saying the Follow has not returned", err)
			}
		})
	})
	if _, err := discovery.Adapt("", func(context.Context, discovery.Feed) error { return nil }); !errors.Is(err, discovery.ErrBadService) {
		t.Errorf("Adapt with no service = %v, want ErrBadService", err)
	}
	if _, err := discovery.Adapt("svc", nil); err == nil {
		t.Error("Adapt with a nil Follow succeeded")
	}
}

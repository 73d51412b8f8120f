package lock_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/internal/patience"
	"github.com/etcdsim/etcdsim/lock"
)

// errGone is the toy library's answer when its key is gone.
var errGone = errors.New("toy: key gone")

// toyLocker stands for a library's lock: etcd's concurrency.Mutex on a
// session of its own, whose check answers with an error alone.
func toyLocker(cli *clientv3.Client, name string, stop func()) *lock.Funcs {
	return &lock.Funcs{NoFencing: "the toy hides its revision", Stop: stop,
		Acquire: func(ctx context.Context) (lock.Held, error) {
			s, err := concurrency.NewSession(cli, concurrency.WithTTL(2))
			if err != nil {
				return nil, err
			}
			m := concurrency.NewMutex(s, name)
			if err := m.Lock(ctx); err != nil {
				return nil, errors.Join(err, s.Close())
			}
			check := func(ctx context.Context) error {
				resp, err := cli.Get(ctx, m.Key())
				if err == nil && len(resp.Kvs) == 0 {
					err = errGone
				}
				return err
			}
			release := func(ctx context.Context) error { return errors.Join(m.Unlock(ctx), s.Close()) }
			return &lock.Hold{Name: m.Key(), Release: release, Check: lock.ErrCheck(check, func(err error) bool { return errors.Is(err, errGone) })}, nil
		}}
}

// A library's lock made a Locker with Funcs locks, and its holder's
// ErrCheck tells an owned lock, a lost one and an unknown answer apart;
// Close stops the library once and refuses Lock after it.
func TestFuncs(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		c := cluster.New(t, cluster.Config{})
		cli := clustertest.Client(t, c, "c1")
		ctx := clustertest.Context(t)
		stops := 0
		l := toyLocker(cli, "L", func() { stops++ })
		h, err := l.Lock(ctx)
		if err != nil {
			t.Fatal(err)
		}
		owned, err := h.(lock.Checker).Owned(ctx)
		if !owned || err != nil {
			t.Errorf("Owned while held = %v, %v; want true", owned, err)
		}
		if _, err := cli.Delete(ctx, h.Key()); err != nil {
			t.Fatal(err)
		}
		owned, err = h.(lock.Checker).Owned(ctx)
		if owned || err != nil {
			t.Errorf("Owned after the key was deleted = %v, %v; want false, nil", owned, err)
		}
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if owned, err := h.(lock.Checker).Owned(cctx); owned || !errors.Is(err, context.Canceled) {
			t.Errorf("Owned on an ended context = %v, %v; want the error", owned, err)
		}
		if err := h.Unlock(ctx); err != nil {
			t.Error(err)
		}
		if got := l.Unfenced(); got != "the toy hides its revision" {
			t.Errorf("Unfenced = %q", got)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		if err := l.Close(); err != nil || stops != 1 {
			t.Errorf("second Close = %v after %d stops, want nil after 1", err, stops)
		}
		if _, err := l.Lock(ctx); err == nil || !strings.Contains(err.Error(), "after Close") {
			t.Errorf("Lock after Close = %v, want an error saying so", err)
		}
	})
}

// A Funcs with no Acquire, and an ErrCheck of no check, say what is
// missing.
func TestFuncsMissing(t *testing.T) {
	if _, err := (&lock.Funcs{}).Lock(context.Background()); err == nil || !strings.Contains(err.Error(), "no Acquire") {
		t.Errorf("Lock with no Acquire = %v, want an error saying so", err)
	}
	if _, err := lock.ErrCheck(nil, nil)(context.Background()); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("ErrCheck of no check = %v, want ErrUnsupported", err)
	}
}

// A library's lock — etcd's concurrency.Mutex stands for it — made a
// Locker with Funcs and a Hold.
//
// The example runs a cluster on the real clock: an Example has no
// *testing.T, so it cannot enter a synctest bubble. Its deadline stretches
// with the machine's load (patience.Scale).
func ExampleFuncs() {
	ctx, cancel := context.WithTimeout(context.Background(), patience.Scale(time.Minute))
	defer cancel()
	c, err := cluster.Start(ctx, cluster.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	cli, _ := c.Client("app")

	l := toyLocker(cli, "L", func() { fmt.Println("the library's client ends") })
	h, err := l.Lock(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	owned, _ := h.(lock.Checker).Owned(ctx)
	fmt.Println("owned:", owned)
	fmt.Println("unlock:", h.Unlock(ctx))
	l.Close()
	// Output:
	// owned: true
	// unlock: <nil>
	// the library's client ends
}

package clustertest_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m, cluster.EtcdLeaks()...) }

// The helpers on the virtual clock, where every test that can runs: the
// bubble's clock moves only when the cluster waits.
func TestClientsAndWaits(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		c := cluster.New(t, cluster.Config{})
		ctx := clustertest.Context(t)
		cli := clustertest.Client(t, c, "c1")
		if again := clustertest.Client(t, c, "c1"); again != cli {
			t.Error("Client with no members made a second client called c1")
		}
		pinned := clustertest.Client(t, c, "c2", "m1")
		obs := clustertest.Observer(t, c.Members()...)

		// A writer adds three keys after a while; WaitKeys wakes on the watch.
		wrote := make(chan struct{})
		go func() {
			defer close(wrote)
			time.Sleep(50 * time.Millisecond)
			for i := range 3 {
				if _, err := pinned.Put(ctx, fmt.Sprintf("/wk/%d", i), "x"); err != nil {
					t.Error(err)
				}
			}
		}()
		clustertest.WaitKeys(t, ctx, obs, "/wk/", 3)
		// The watch may see the last key before the writer has its answer;
		// isolating the writer then would leave that Put waiting.
		<-wrote

		if err := c.Isolate("c2"); err != nil {
			t.Fatal(err)
		}
		// The observer's front endpoints are untouched by the client's isolation.
		clustertest.Eventually(t, ctx, "the observer reads the keys", func(ctx context.Context) error {
			resp, err := obs.Get(ctx, "/wk/", clientv3.WithPrefix())
			if err != nil {
				return err
			}
			if len(resp.Kvs) != 3 {
				return fmt.Errorf("%d keys", len(resp.Kvs))
			}
			return nil
		})
		if err := c.Heal("c2"); err != nil {
			t.Fatal(err)
		}
	})
}

func TestClosed(t *testing.T) {
	ch := make(chan struct{})
	if clustertest.Closed(ch) {
		t.Error("an open channel reads as closed")
	}
	close(ch)
	if !clustertest.Closed(ch) {
		t.Error("a closed channel reads as open")
	}
}

// fatalTB records the first Fatalf and stops the calling goroutine, as
// testing.T does.
type fatalTB struct {
	testing.TB
	msg chan string
}

func (f *fatalTB) Helper() {}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg <- fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func TestEventuallyFailsWithTheLastError(t *testing.T) {
	tb := &fatalTB{TB: t, msg: make(chan string, 1)}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	go clustertest.Eventually(tb, ctx, "the impossible", func(context.Context) error {
		return errors.New("still not")
	})
	select {
	case msg := <-tb.msg:
		if !strings.Contains(msg, "the impossible") || !strings.Contains(msg, "still not") {
			t.Errorf("failure message %q does not name the wait and its last error", msg)
		}
	case <-time.After(clustertest.Patience):
		t.Fatal("Eventually did not give up when its context ended")
	}
}

package discovery_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/discovery"
)

// toyWatcher stands for a library that follows a prefix and sends every
// listing on an unbuffered channel, blocking until it is read — as go-kit's
// Instancer does; its stop waits for its goroutine.
type toyWatcher struct {
	events chan []string
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func watchPrefix(cli *clientv3.Client, prefix string) *toyWatcher {
	ctx, cancel := context.WithCancel(context.Background())
	w := &toyWatcher{events: make(chan []string), cancel: cancel}
	w.wg.Go(func() {
		for {
			resp, err := cli.Get(ctx, prefix, clientv3.WithPrefix())
			if err != nil {
				return
			}
			var values []string
			for _, kv := range resp.Kvs {
				values = append(values, string(kv.Value))
			}
			w.events <- append(values, "not a record") // no select on ctx: a send after stop blocks
			wch := cli.Watch(ctx, prefix, clientv3.WithPrefix(), clientv3.WithRev(resp.Header.Revision+1))
			if _, ok := <-wch; !ok {
				return
			}
		}
	})
	return w
}

func (w *toyWatcher) stop() { w.cancel(); w.wg.Wait() }

// A library that sends its listings on a channel is followed with Relay:
// the resolver shows each listing's records as addresses, and Close stops
// the library even while it is blocked sending.
func TestRelay(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		c := cluster.New(t, cluster.Config{})
		cli := clustertest.Client(t, c, "svc")
		ctx := clustertest.Context(t)
		w := watchPrefix(cli, "echo/")
		// A change that comes as the resolver stops finds the library's
		// send unread: its stop waits for a goroutine blocked in that send
		// unless the channel is drained meanwhile.
		stop := func() {
			if _, err := cli.Put(context.Background(), "echo/10.0.0.3:1", discovery.Record("10.0.0.3:1")); err != nil {
				t.Error(err)
			}
			time.Sleep(time.Second) // the library sees the change and sends
			w.stop()
		}
		res, err := discovery.Adapt("echo", discovery.Relay(w.events,
			func(values []string) ([]string, error) { return discovery.Addrs(values), nil }, stop))
		if err != nil {
			t.Fatal(err)
		}
		waitState(t, ctx, res, "an empty listing", hasAddrs())
		for _, addr := range []string{"10.0.0.1:1", "10.0.0.2:1"} {
			if _, err := cli.Put(ctx, "echo/"+addr, discovery.Record(addr)); err != nil {
				t.Fatal(err)
			}
		}
		waitState(t, ctx, res, "both instances", hasAddrs("10.0.0.1:1", "10.0.0.2:1"))
		if err := res.Close(); err != nil {
			t.Fatalf("Close with the library blocked in a send: %v", err)
		}
	})
}

// An error a listing carries marks the set unsure; a library that closes
// its channel ends the resolver with an error saying so.
func TestRelayErrorsAndClose(t *testing.T) {
	events := make(chan string)
	stopped := false
	res, err := discovery.Adapt("echo", discovery.Relay(events, func(v string) ([]string, error) {
		if v == "" {
			return nil, errors.New("watch lost")
		}
		return []string{v}, nil
	}, func() { stopped = true }))
	if err != nil {
		t.Fatal(err)
	}
	ctx := clustertest.Context(t)
	events <- "10.0.0.1:1"
	events <- ""
	s := waitState(t, ctx, res, "the failed listing", func(s discovery.State) bool { return s.Err != nil })
	if !slices.Equal(addrsOf(s), []string{"10.0.0.1:1"}) || !strings.Contains(s.Err.Error(), "watch lost") {
		t.Errorf("state after a failed listing = %+v, want the last set kept with the error", s)
	}
	close(events)
	<-res.Done()
	if err := res.Close(); err == nil || !strings.Contains(err.Error(), "closed its channel") || !stopped {
		t.Errorf("Close after the library closed its channel = %v (stopped %v), want an error saying so, and stop called", err, stopped)
	}
	bad, err := discovery.Adapt("echo", discovery.Relay[string](nil, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	<-bad.Done()
	if err := bad.Close(); err == nil || !strings.Contains(err.Error(), "needs a channel") {
		t.Errorf("Relay without a channel = %v, want an error saying so", err)
	}
}

func addrsOf(s discovery.State) []string {
	var addrs []string
	for _, e := range s.Endpoints {
		addrs = append(addrs, e.Addr)
	}
	return addrs
}

func TestAddrs(t *testing.T) {
	got := discovery.Addrs([]string{discovery.Record("10.0.0.1:1"), "junk", discovery.Record("10.0.0.2:1")})
	if !slices.Equal(got, []string{"10.0.0.1:1", "10.0.0.2:1"}) {
		t.Errorf("Addrs = %v", got)
	}
}

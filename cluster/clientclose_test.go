package cluster

import (
	"context"
	"os"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/etcdserver/api/v3client"

	"github.com/etcdsim/etcdsim/internal/bubble"
)

// closeClient reaches into clientv3's watch streams (clientv3internals.go);
// that reach is pinned to the clientv3 version go.mod requires. If this
// fails after an upgrade, read watch.go's teardown (watchGRPCStream.run's
// deferred function, serveSubstream's send on closingc, addSubstream)
// against the new version before changing the version here.
func TestClientv3InternalsMatchGoMod(t *testing.T) {
	const pinned = "v3.7.3"
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`go\.etcd\.io/etcd/client/v3 (\S+)`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod does not require go.etcd.io/etcd/client/v3")
	}
	if got := string(m[1]); got != pinned {
		t.Fatalf("go.mod requires clientv3 %s; clientv3internals.go and closeClient were checked against %s", got, pinned)
	}
}

// closeClient finds the watch streams of a client's watches, and of the
// in-process client the lock and election services use (v3client wraps
// its watcher), and closes both without anything to hand over.
func TestCloseClientFindsWatchStreams(t *testing.T) {
	bubble.Test(t, bubble.Options{Name: t.Name()}, func(t *testing.T) {
		c := New(t, Config{Clock: ClockVirtual})
		ctx := testCtx(t)
		own := v3client.New(c.Members()[0].Server())
		for _, cli := range []*clientv3.Client{client(t, c, "c1"), own} {
			if got, err := watchClosings(cli); err != nil || len(got) != 0 {
				t.Fatalf("watch streams of a client that watches nothing: %d, %v; want none", len(got), err)
			}
			wch := cli.Watch(ctx, "k")
			put(t, cli, "k", "v")
			if r := <-wch; r.Err() != nil || len(r.Events) != 1 {
				t.Fatalf("watch: %+v", r)
			}
			got, err := watchClosings(cli)
			if err != nil || len(got) != 1 {
				t.Fatalf("watch streams of a client with one watch: %d, %v; want one", len(got), err)
			}
			if err := closeClient(cli); err != nil {
				t.Errorf("closeClient of a client whose teardown does not wait: %v", err)
			}
			for range wch { // closed by Close
			}
		}
	})
}

// A substream goroutine that clientv3's teardown did not count — as
// addSubstream leaves one for a watch the server refused at creation —
// sends on the stream's closingc after run has left its loop: run's
// deferred wg.Wait then waits on it for good, and so did Client.Close.
// The test makes such a goroutine with clientv3's own channel and wait
// group, and closeClient hands its watcher over and the client closes.
// Without the hand-over, Close waits for good and the test fails after a
// minute of virtual time.
func TestCloseClientHandsOverAnUncountedClosingWatcher(t *testing.T) {
	bubble.Test(t, bubble.Options{Name: t.Name()}, func(t *testing.T) {
		c := New(t, Config{Clock: ClockVirtual})
		ctx := testCtx(t)
		cli, err := c.NewClient("c1", ClientConfig{})
		if err != nil {
			t.Fatal(err)
		}
		wch := cli.Watch(ctx, "k")
		put(t, cli, "k", "v")
		<-wch
		stream := onlyWatchStream(t, cli)
		closingc, wg, streamCtx := streamParts(t, stream)
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-streamCtx.Done()           // the client closes: run leaves its loop
			time.Sleep(time.Millisecond) // after run's teardown counted its closing watchers
			closingc.Send(reflect.New(closingc.Type().Elem().Elem()))
		}()
		done := make(chan error, 1)
		go func() { done <- closeClient(cli) }()
		select {
		case err = <-done:
		case <-time.After(time.Minute):
			t.Fatal("closeClient has not returned after a minute: the client's watch teardown waits for good")
		}
		if err == nil || !strings.Contains(err.Error(), "handed them over and the client closed") {
			t.Fatalf("closeClient with an uncounted closing watcher: %v; want an error that says it handed the watcher over", err)
		}
		t.Log(err)
	})
}

// onlyWatchStream returns cli's one watch stream (a *watchGRPCStream).
func onlyWatchStream(t *testing.T, cli *clientv3.Client) reflect.Value {
	t.Helper()
	streams, err := unexported(reflect.ValueOf(cli.Watcher), "streams")
	if err != nil {
		t.Fatal(err)
	}
	if streams.Len() != 1 {
		t.Fatalf("%d watch streams, want 1", streams.Len())
	}
	it := streams.MapRange()
	it.Next()
	return it.Value()
}

// streamParts returns a watch stream's closingc, wait group and context.
func streamParts(t *testing.T, stream reflect.Value) (reflect.Value, *sync.WaitGroup, context.Context) {
	t.Helper()
	var parts []reflect.Value
	for _, name := range []string{"closingc", "wg", "ctx"} {
		f, err := unexported(stream, name)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, f)
	}
	wg, ok1 := parts[1].Addr().Interface().(*sync.WaitGroup)
	ctx, ok2 := parts[2].Interface().(context.Context)
	if !ok1 || !ok2 {
		t.Fatalf("watchGRPCStream's wg is a %s and ctx a %s", parts[1].Type(), parts[2].Type())
	}
	return parts[0], wg, ctx
}

package cluster

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// A library's client built with LibraryClient reaches the cluster on the
// named client's links; its context ends on stop, and with the process
// when the named client crashes; a build that fails is stopped and named.
func TestLibraryClient(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New(t, Config{})
		cli := client(t, c, "svc")
		var ctx context.Context
		own, stop, err := LibraryClient(cli, "lib", func(cfg clientv3.Config) (*clientv3.Client, error) {
			ctx = cfg.Context
			return clientv3.New(cfg)
		})
		if err != nil {
			t.Fatal(err)
		}
		onLinks(t, c, cli, own, "svc")
		stop()
		if ctx.Err() == nil {
			t.Error("the library's context is live after stop")
		}
		own.Close()

		var failed context.Context
		_, _, err = LibraryClient(cli, "lib", func(cfg clientv3.Config) (int, error) {
			failed = cfg.Context
			return 0, errors.New("no dial")
		})
		if err == nil || !strings.Contains(err.Error(), "lib's client: no dial") || failed.Err() == nil {
			t.Errorf("a failed build = %v, its context ended: %v; want an error naming lib, and the context ended", err, failed.Err() != nil)
		}

		var lived context.Context
		_, stop, err = LibraryClient(cli, "lib", func(cfg clientv3.Config) (int, error) { lived = cfg.Context; return 1, nil })
		if err != nil {
			t.Fatal(err)
		}
		defer stop()
		if err := c.CrashClient("svc"); err != nil {
			t.Fatal(err)
		}
		if lived.Err() == nil {
			t.Error("the library's context is live after its process crashed")
		}
	})
}

// LibraryClient of a client no cluster made, or with no build, says so.
func TestLibraryClientBadInput(t *testing.T) {
	if _, _, err := LibraryClient(nil, "lib", func(clientv3.Config) (int, error) { return 0, nil }); err == nil || !strings.Contains(err.Error(), "not made by a cluster") {
		t.Errorf("LibraryClient(nil) = %v, want an error saying the client was not made by a cluster", err)
	}
	if _, _, err := LibraryClient[int](nil, "lib", nil); err == nil || !strings.Contains(err.Error(), "nil build") {
		t.Errorf("LibraryClient with no build = %v, want an error saying so", err)
	}
}

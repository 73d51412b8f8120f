package discovery_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/discovery"
)

// toyRegistrar stands for a library's registrar: register puts the key on
// a lease it keeps alive, and closes lost when the keep-alive stops;
// deregister revokes the lease.
type toyRegistrar struct {
	cli   *clientv3.Client
	key   string
	mu    sync.Mutex
	lease clientv3.LeaseID
	lost  chan struct{}
	wg    sync.WaitGroup
}

func (r *toyRegistrar) register(ctx context.Context) error {
	g, err := r.cli.Grant(ctx, 2)
	if err != nil {
		return err
	}
	if _, err := r.cli.Put(ctx, r.key, discovery.Record("10.0.0.1:1"), clientv3.WithLease(g.ID)); err != nil {
		return err
	}
	ka, err := r.cli.KeepAlive(context.WithoutCancel(ctx), g.ID)
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.lease = g.ID
	r.mu.Unlock()
	r.wg.Go(func() {
		for range ka {
		}
		close(r.lost)
	})
	return nil
}

func (r *toyRegistrar) deregister(ctx context.Context) error {
	r.mu.Lock()
	id := r.lease
	r.mu.Unlock()
	_, err := r.cli.Revoke(ctx, id)
	r.wg.Wait()
	return err
}

// A library's registrar made a Registrar with Funcs registers once, is
// done when the library says its key is lost and does not register again,
// and deregisters and stops the library on Close, once.
func TestFuncs(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		c := cluster.New(t, cluster.Config{})
		cli := clustertest.Client(t, c, "svc")
		ctx := clustertest.Context(t)
		lib := &toyRegistrar{cli: cli, key: "echo/10.0.0.1:1", lost: make(chan struct{})}
		stops := 0
		reg := &discovery.Funcs{Name: lib.key, Put: lib.register, ReadBack: cli, Lost: lib.lost,
			Delete: lib.deregister, Stop: func() { stops++ }}
		if err := reg.Register(ctx); err != nil {
			t.Fatal(err)
		}
		waitKey(t, ctx, cli, lib.key, true)
		if err := reg.Register(ctx); !errors.Is(err, discovery.ErrRegistered) {
			t.Errorf("second Register = %v, want ErrRegistered", err)
		}
		select {
		case <-reg.Done():
			t.Fatal("Done closed while the library keeps the key")
		default:
		}
		lib.mu.Lock()
		id := lib.lease
		lib.mu.Unlock()
		if _, err := cli.Revoke(ctx, id); err != nil {
			t.Fatal(err)
		}
		select {
		case <-reg.Done():
		case <-ctx.Done():
			t.Fatal("Done still open after the library lost its lease")
		}
		if err := reg.Close(); err == nil || !strings.Contains(err.Error(), "deregister "+lib.key) {
			t.Errorf("Close after the lease was revoked = %v, want the library's Delete error naming the key", err)
		}
		if err := reg.Close(); err != nil || stops != 1 {
			t.Errorf("second Close = %v after %d stops, want nil after 1", err, stops)
		}
		if err := reg.Register(ctx); !errors.Is(err, discovery.ErrClosed) {
			t.Errorf("Register after Close = %v, want ErrClosed", err)
		}
	})
}

// A library whose register writes nothing and says nothing is caught by
// ReadBack, and may be registered again; a Funcs without Put says so.
func TestFuncsReadBack(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		c := cluster.New(t, cluster.Config{})
		cli := clustertest.Client(t, c, "svc")
		ctx := clustertest.Context(t)
		puts := 0
		reg := &discovery.Funcs{Name: "echo/10.0.0.2:1", ReadBack: cli, Put: func(ctx context.Context) error {
			puts++
			if puts == 1 {
				return nil // logged its error, wrote nothing
			}
			_, err := cli.Put(ctx, "echo/10.0.0.2:1", discovery.Record("10.0.0.2:1"))
			return err
		}}
		defer reg.Close()
		if err := reg.Register(ctx); err == nil || !strings.Contains(err.Error(), "echo/10.0.0.2:1") || !strings.Contains(err.Error(), "not in etcd") {
			t.Errorf("Register of a library that wrote nothing = %v, want an error naming the key", err)
		}
		if err := reg.Register(ctx); err != nil {
			t.Errorf("Register again = %v, want nil", err)
		}
		bare := &discovery.Funcs{Name: "echo/x"}
		if err := bare.Register(ctx); err == nil || !strings.Contains(err.Error(), "nil Put") {
			t.Errorf("Register without Put = %v, want an error saying so", err)
		}
		if err := bare.Close(); err != nil {
			t.Error(err)
		}
	})
}

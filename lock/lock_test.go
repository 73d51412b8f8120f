package lock

import (
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/lease"
	clientv3 "go.etcd.io/etcd/client/v3"
)

func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	broken := 0
	for _, r := range Recipes() {
		if seen[r.Name] {
			t.Errorf("recipe %q registered twice", r.Name)
		}
		seen[r.Name] = true
		if r.New == nil {
			t.Errorf("recipe %q has no New", r.Name)
		}
		if err := r.Validate(); err != nil {
			t.Errorf("recipe %q: %v", r.Name, err)
		}
		if r.Broken {
			broken++
		}

		got, err := Lookup(r.Name)
		if err != nil || got.Name != r.Name {
			t.Errorf("Lookup(%q) = %q, %v", r.Name, got.Name, err)
		}
	}
	if _, err := Lookup("no-such-lock"); !errors.Is(err, ErrUnknownRecipe) {
		t.Errorf("Lookup of an unknown name: got %v, want ErrUnknownRecipe", err)
	}
	// Each broken recipe lives in a broken_*.go file whose type's doc
	// comment begins "BROKEN (deliberately):".
	files, err := filepath.Glob("broken_*.go")
	if err != nil {
		t.Fatal(err)
	}
	marked := 0
	for _, name := range files {
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		has := false
		for _, cg := range f.Comments {
			for _, line := range strings.Split(cg.Text(), "\n") {
				has = has || strings.HasPrefix(line, "BROKEN (deliberately):")
			}
		}
		if has {
			marked++
		} else {
			t.Errorf("%s: no comment line begins \"BROKEN (deliberately):\"", name)
		}
	}
	if marked != broken {
		t.Errorf("%d broken recipes registered but %d files marked BROKEN", broken, marked)
	}
}

// Bad input is an error wrapping the package's sentinel, for every recipe.
// It stays on the real clock: its subtests share one cluster, and a
// synctest bubble cannot hold t.Run.
func TestBadInput(t *testing.T) {
	c := cluster.New(t, cluster.Config{})
	cli := clustertest.Client(t, c, "c1")
	tests := []struct {
		name     string
		lockName string
		opts     Options
		want     error
	}{
		{name: "empty name", lockName: "", want: ErrBadName},
		{name: "empty name, prefix set", lockName: "", opts: Options{Prefix: "p/"}, want: ErrBadName},
		{name: "negative TTL", lockName: "x", opts: Options{TTL: -time.Second}, want: ErrBadTTL},
		{name: "TTL below a second", lockName: "x", opts: Options{TTL: 500 * time.Millisecond}, want: ErrBadTTL},
		{name: "TTL not whole seconds", lockName: "x", opts: Options{TTL: 1500 * time.Millisecond}, want: ErrBadTTL},
	}
	for _, r := range Recipes() {
		for _, tt := range tests {
			t.Run(r.Name+"/"+tt.name, func(t *testing.T) {
				l, err := r.New(cli, tt.lockName, tt.opts)
				if !errors.Is(err, tt.want) {
					t.Errorf("New(%q, %+v) = %v, %v; want %v", tt.lockName, tt.opts, l, err, tt.want)
				}
				if tt.want == ErrBadTTL && (!errors.Is(err, lease.ErrBadTTL) || !strings.Contains(err.Error(), tt.opts.TTL.String())) {
					t.Errorf("New with TTL %v: %v; want an error that wraps lease.ErrBadTTL too and names the TTL", tt.opts.TTL, err)
				}
			})
		}
		t.Run(r.Name+"/nil client", func(t *testing.T) {
			if _, err := r.New(nil, "x", Options{}); err == nil {
				t.Error("New with a nil client: no error")
			}
		})
	}
}

// A second Unlock of the same holder is ErrNotHeld, never a silent no-op.
func TestUnlockTwice(t *testing.T) {
	for _, r := range Recipes() {
		t.Run(r.Name, func(t *testing.T) {
			t.Parallel() // a cluster of its own, on the virtual clock
			clustertest.Virtual(t, func(t *testing.T) {
				c := cluster.New(t, cluster.Config{})
				cli := clustertest.Client(t, c, "c1")
				ctx := clustertest.Context(t)
				h := mustLock(t, ctx, newLocker(t, r.Name, cli, "twice-"+r.Name, Options{TTL: 2 * time.Second}))
				// Every holder tells its lease, so faults can aim at it; only
				// the lease-less lock has none.
				ls, ok := h.(interface{ Lease() clientv3.LeaseID })
				if leased := ok && ls.Lease() != 0; leased != (r.Name != "setnx") {
					t.Errorf("%s: holder's lease known: %v, want %v", r.Name, leased, r.Name != "setnx")
				}
				unlock(t, ctx, h, nil)
				unlock(t, ctx, h, ErrNotHeld)
			})
		})
	}
}

// A cluster whose election timeout is 700 ms cannot grant leases shorter
// than 2 s (etcd raises a TTL to 1.5 election timeouts, rounded up). A
// recipe asked for 1 s must say so rather than hold a 2 s lease. It stays
// on the real clock for the reason TestBadInput does.
func TestTTLBelowClusterMinimum(t *testing.T) {
	c := cluster.New(t, cluster.Config{ElectionTimeout: 700 * time.Millisecond})
	cli := clustertest.Client(t, c, "c1")
	for _, r := range Recipes() {
		if r.Name == "setnx" {
			continue // takes no lease: that is its pitfall
		}
		t.Run(r.Name, func(t *testing.T) {
			ctx := clustertest.Context(t)
			l := newLocker(t, r.Name, cli, "ttl-"+r.Name, Options{TTL: time.Second})
			h, err := l.Lock(ctx)
			if !errors.Is(err, ErrBadTTL) || !errors.Is(err, lease.ErrBadTTL) {
				t.Errorf("Lock with TTL 1s on a cluster whose minimum is 2s: got %v, want ErrBadTTL and lease.ErrBadTTL", err)
			}
			if h != nil {
				unlock(t, ctx, h, nil)
			}
			h = mustLock(t, ctx, newLocker(t, r.Name, cli, "ttl-"+r.Name, Options{TTL: 2 * time.Second}))
			unlock(t, ctx, h, nil)
		})
	}
}

// A holder whose lease expired while it was cut off learns it at Unlock:
// ErrNotHeld. Its Done closes, from its own count of the TTL (the guard's,
// see lease).
func TestUnlockAfterLeaseLost(t *testing.T) {
	for _, r := range Recipes() {
		if r.Broken {
			continue
		}
		t.Run(r.Name, func(t *testing.T) {
			t.Parallel() // a cluster of its own, on the virtual clock
			clustertest.Virtual(t, func(t *testing.T) {
				c := cluster.New(t, cluster.Config{})
				observer := clustertest.Client(t, c, "observer")
				ctx := clustertest.Context(t)
				name := "lost-" + r.Name
				cli := clustertest.Client(t, c, name)
				h := mustLock(t, ctx, newLocker(t, r.Name, cli, name, Options{TTL: time.Second}))
				resume := pause(t, c, name)
				gone := keyDeleted(ctx, observer, h.Key())
				select {
				case <-h.Done():
				case <-gone:
					// Done closes a quarter TTL before etcd could expire
					// the lease, counted from the send of the last renewal
					// acknowledged; only a goroutine starved for longer than
					// that margin sees the key go first, and when both have
					// happened select picks either. The order is asserted,
					// with timestamps, in lease.
					t.Logf("the holder's key was seen deleted before the holder's Done")
					<-h.Done()
				case <-ctx.Done():
					t.Fatal("Done not closed while the holder was cut off past its TTL")
				}
				select {
				case <-gone:
				case <-ctx.Done():
					t.Fatal("the key of a holder cut off past its TTL is still there")
				}
				resume()
				unlock(t, ctx, h, ErrNotHeld)
			})
		})
	}
}

func TestOptionsDefaults(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		c := cluster.New(t, cluster.Config{})
		cli := clustertest.Client(t, c, "c1")
		m, err := NewMutex(cli, "jobs", Options{})
		if err != nil {
			t.Fatal(err)
		}
		if m.pfx != DefaultPrefix+"jobs" || m.ttl != DefaultTTL {
			t.Errorf("zero Options: prefix %q TTL %v, want %q %v", m.pfx, m.ttl, DefaultPrefix+"jobs", DefaultTTL)
		}
		ctx := clustertest.Context(t)
		h := mustLock(t, ctx, m)
		resp, err := cli.TimeToLive(ctx, leaseOf(t, h))
		if err != nil {
			t.Fatal(err)
		}
		if got := time.Duration(resp.GrantedTTL) * time.Second; got != DefaultTTL {
			t.Errorf("granted TTL %v, want %v", got, DefaultTTL)
		}
		unlock(t, ctx, h, nil)
	})
}

// leaseOf returns the lease of a holder of a recipe that names its key
// after its lease (prefix/<lease in hex>).
func leaseOf(t testing.TB, h Held) clientv3.LeaseID {
	t.Helper()
	var id clientv3.LeaseID
	if _, err := fmt.Sscanf(h.Key()[strings.LastIndex(h.Key(), "/")+1:], "%x", &id); err != nil {
		t.Fatalf("key %s does not end in a lease ID: %v", h.Key(), err)
	}
	return id
}

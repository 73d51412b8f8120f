package election_test

import (
	"errors"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/election"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// TestBadArguments checks that every recipe refuses what it cannot run
// with, before any network call.
func TestBadArguments(t *testing.T) {
	// A client that is never dialled: constructors must not use it.
	cli := clientv3.NewCtxClient(t.Context())
	defer cli.Close()
	tests := []struct {
		name   string
		prefix string
		opts   election.Options
		want   error
	}{
		{name: "empty prefix", prefix: "", want: election.ErrBadPrefix},
		{name: "negative TTL", prefix: "/p", opts: election.Options{TTL: -time.Second}, want: election.ErrBadTTL},
		{name: "TTL below a second", prefix: "/p", opts: election.Options{TTL: 500 * time.Millisecond}, want: election.ErrBadTTL},
		{name: "TTL not whole seconds", prefix: "/p", opts: election.Options{TTL: 1500 * time.Millisecond}, want: election.ErrBadTTL},
		{name: "defaults", prefix: "/p"},
	}
	for _, tt := range tests {
		for _, r := range election.Recipes() {
			t.Run(tt.name+"/"+r.Name, func(t *testing.T) {
				e, err := r.New(cli, tt.prefix, tt.opts)
				if !errors.Is(err, tt.want) {
					t.Fatalf("got %v, want %v", err, tt.want)
				}
				if e != nil {
					if err := e.Close(); err != nil {
						t.Fatal(err)
					}
				}
			})
		}
	}
	if _, err := election.Lookup("nope"); !errors.Is(err, election.ErrUnknownRecipe) {
		t.Errorf("Lookup(nope): got %v, want ErrUnknownRecipe", err)
	}
}

// TestNotLeader checks, for every recipe, that a leadership that has ended
// cannot resign or proclaim, and that an empty election has no leader.
func TestNotLeader(t *testing.T) {
	for _, r := range election.Recipes() {
		t.Run(r.Name, func(t *testing.T) {
			t.Parallel() // a cluster of its own, on the virtual clock
			clustertest.Virtual(t, func(t *testing.T) {
				c := cluster.New(t, cluster.Config{})
				other := clustertest.Client(t, c, "revoker")
				ctx := clustertest.Context(t)
				prefix := "/notleader/" + r.Name
				e := newElector(t, r, clustertest.Client(t, c, r.Name), prefix, election.Options{TTL: 5 * time.Second})
				if _, err := e.(election.LeaderReader).Leader(ctx); !errors.Is(err, election.ErrNoLeader) {
					t.Errorf("Leader of an empty election: got %v, want ErrNoLeader", err)
				}

				l, err := e.Campaign(ctx, "v")
				if err != nil {
					t.Fatal(err)
				}
				if err := l.Resign(ctx); err != nil {
					t.Fatal(err)
				}
				if err := l.Resign(ctx); !errors.Is(err, election.ErrNotLeader) {
					t.Errorf("second Resign: got %v, want ErrNotLeader", err)
				}
				if err := l.Proclaim(ctx, "w"); !errors.Is(err, election.ErrNotLeader) {
					t.Errorf("Proclaim after Resign: got %v, want ErrNotLeader", err)
				}

				// Someone else revokes the leader's lease: its key goes.
				l, err = e.Campaign(ctx, "v")
				if err != nil {
					t.Fatal(err)
				}
				resp, err := other.Get(ctx, l.Key())
				if err != nil || len(resp.Kvs) != 1 {
					t.Fatalf("read leader key %s: %v %v", l.Key(), resp, err)
				}
				if _, err := other.Revoke(ctx, clientv3.LeaseID(resp.Kvs[0].Lease)); err != nil {
					t.Fatal(err)
				}
				if err := l.Resign(ctx); !errors.Is(err, election.ErrNotLeader) {
					t.Errorf("Resign after the lease was revoked: got %v, want ErrNotLeader", err)
				}

				if err := e.Close(); err != nil {
					t.Fatal(err)
				}
				if _, err := e.Campaign(ctx, "v"); !errors.Is(err, election.ErrClosed) {
					t.Errorf("Campaign after Close: got %v, want ErrClosed", err)
				}
			})
		})
	}
}

// TestTTLBelowClusterMinimum runs a cluster whose minimum lease TTL is 2s
// (1.5 election timeouts of 1s, rounded up) and asks every recipe for 1s:
// etcd would silently grant 2s; the recipes say so instead. It stays on
// the real clock: its subtests share one cluster, and a synctest bubble
// cannot hold t.Run.
func TestTTLBelowClusterMinimum(t *testing.T) {
	c := cluster.New(t, cluster.Config{HeartbeatInterval: 100 * time.Millisecond, ElectionTimeout: time.Second})
	for _, r := range election.Recipes() {
		t.Run(r.Name, func(t *testing.T) {
			ctx := clustertest.Context(t)
			e := newElector(t, r, clustertest.Client(t, c, r.Name), "/minttl/"+r.Name, election.Options{TTL: time.Second})
			if _, err := e.Campaign(ctx, "v"); !errors.Is(err, election.ErrBadTTL) {
				t.Fatalf("got %v, want ErrBadTTL", err)
			}
		})
	}
}

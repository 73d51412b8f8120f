package discovery_test

import (
	"slices"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/discovery"
)

// TestLeaseLost: the registration's lease is lost, revoked
// by someone or expired while the instance's process was cut off past its
// TTL. The correct registrar registers again on a new lease; the broken
// one gives up, closes Done, and the instance stays gone from etcd. (The
// broken one's revoked lease is the registered scenario
// discovery/noreregister/revoke-lease, judged by DiscoveryConvergence.)
func TestLeaseLost(t *testing.T) {
	tests := []struct {
		name    string
		recipe  string
		fault   string // "revoke" or "pause"
		comesUp bool
	}{
		{name: "keepalive/revoke", recipe: "keepalive", fault: "revoke", comesUp: true},
		{name: "keepalive/pause", recipe: "keepalive", fault: "pause", comesUp: true},
		{name: "noreregister/pause", recipe: "noreregister", fault: "pause"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // a cluster of its own, on the virtual clock
			clustertest.Virtual(t, func(t *testing.T) {
				c := cluster.New(t, cluster.Config{})
				admin := clustertest.Client(t, c, "admin")
				ctx := clustertest.Context(t)
				name := "inst" + string(rune('a'+i))
				reg := register(t, ctx, tt.recipe, clustertest.Client(t, c, name), "lost", name+":1", discovery.Options{TTL: time.Second})
				lease := waitKey(t, ctx, admin, reg.Key(), true)

				switch tt.fault {
				case "revoke":
					if _, err := admin.Revoke(ctx, lease); err != nil {
						t.Fatal(err)
					}
				case "pause":
					if err := c.Isolate(name); err != nil {
						t.Fatal(err)
					}
					waitKey(t, ctx, admin, reg.Key(), false) // the lease expired
					if err := c.Heal(name); err != nil {
						t.Error(err)
					}
				}

				if tt.comesUp {
					for {
						now := waitKey(t, ctx, admin, reg.Key(), true)
						if now != lease {
							t.Logf("registered again on lease %x (was %x)", int64(now), int64(lease))
							break
						}
						waitKey(t, ctx, admin, reg.Key(), false)
					}
					if clustertest.Closed(reg.Done()) {
						t.Error("the registrar stopped")
					}
					return
				}
				select {
				case <-reg.Done():
				case <-ctx.Done():
					t.Fatal("the broken registrar neither stopped nor registered again")
				}
				resp, err := admin.Get(ctx, reg.Key())
				if err != nil {
					t.Fatal(err)
				}
				if len(resp.Kvs) != 0 {
					t.Fatalf("want %s gone for good, found it on lease %x", reg.Key(), resp.Kvs[0].Lease)
				}
				t.Logf("%s stopped after losing lease %x; %s is gone from discovery", tt.recipe, int64(lease), reg.Key())
			})
		})
	}
}

// TestCompactedWatch: a resolver's client is cut off while
// the service changes and etcd compacts its history; when it comes back
// its watch resumes from a compacted revision. The broken resolver stops
// on that error, closes Done and is frozen on the old set; the
// serializable one lists again. (The registered scenarios
// discovery/keepalive/isolate-resolver-compact and
// discovery/stopsonerror/isolate-resolver-compact judge the relisting and
// the broken resolver under the same fault by DiscoveryConvergence.)
func TestCompactedWatch(t *testing.T) {
	tests := []struct {
		name   string
		frozen bool
	}{
		{name: "serializable"}, // wrong under partitions, right here
		{name: "stopsonerror", frozen: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // a cluster of its own, on the virtual clock
			clustertest.Virtual(t, func(t *testing.T) {
				c := cluster.New(t, cluster.Config{})
				ctx := clustertest.Context(t)
				service := "compact-" + tt.name
				reg := clustertest.Client(t, c, "reg-"+tt.name)
				opts := discovery.Options{TTL: 5 * time.Second}
				register(t, ctx, "keepalive", reg, service, "x:1", opts)
				y := register(t, ctx, "keepalive", reg, service, "y:1", opts)
				rname := "res-" + tt.name
				res := resolve(t, tt.name, clustertest.Client(t, c, rname), service)
				waitState(t, ctx, res, "x and y", hasAddrs("x:1", "y:1"))

				if err := c.Isolate(rname); err != nil {
					t.Fatal(err)
				}
				if err := y.Close(); err != nil {
					t.Fatal(err)
				}
				register(t, ctx, "keepalive", reg, service, "z:1", opts)
				resp, err := reg.Get(ctx, "compact-marker")
				if err != nil {
					t.Fatal(err)
				}
				if _, err := reg.Compact(ctx, resp.Header.Revision); err != nil {
					t.Fatal(err)
				}
				if err := c.Heal(rname); err != nil {
					t.Error(err)
				}
				register(t, ctx, "keepalive", reg, service, "w:1", opts)

				if !tt.frozen {
					waitState(t, ctx, res, "x, z and w", hasAddrs("x:1", "z:1", "w:1"))
					return
				}
				select {
				case <-res.Done():
				case <-ctx.Done():
					t.Fatal("the broken resolver did not stop")
				}
				s := res.State()
				if !slices.Equal(s.Addrs(), []string{"x:1", "y:1"}) || s.Err != nil {
					t.Fatalf("want the resolver frozen on x and y with no error, have %v (err %v)", s.Addrs(), s.Err)
				}
				t.Logf("frozen on %v: y deregistered, z and w missing", s.Addrs())
			})
		})
	}
}

// TestPartitionedMember: the resolver's client reaches only
// one follower, which a partition cuts off from the others while an
// instance deregisters and another registers through the leader. A resolver started there with
// serializable reads serves the old set as current; the correct one says
// it cannot vouch for any set, and catches up when the partition heals.
func TestPartitionedMember(t *testing.T) {
	tests := []struct {
		name  string
		stale bool
	}{
		{name: "relisting"},
		{name: "serializable", stale: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // a cluster of its own, on the virtual clock
			clustertest.Virtual(t, func(t *testing.T) {
				c := cluster.New(t, cluster.Config{})
				ctx := clustertest.Context(t)
				const service = "part"
				lead, err := c.Leader(ctx)
				if err != nil {
					t.Fatal(err)
				}
				var cut string // a follower, so the majority keeps its leader
				var rest []string
				for _, m := range c.Members() {
					switch {
					case m.Name() != lead.Name() && cut == "":
						cut = m.Name()
					default:
						rest = append(rest, m.Name())
					}
				}
				reg := clustertest.Client(t, c, "reg", lead.Name())
				opts := discovery.Options{TTL: 5 * time.Second}
				register(t, ctx, "keepalive", reg, service, "x:1", opts)
				y := register(t, ctx, "keepalive", reg, service, "y:1", opts)
				before := resolve(t, tt.name, clustertest.Client(t, c, "before", cut), service)
				waitState(t, ctx, before, "x and y", hasAddrs("x:1", "y:1"))

				if err := c.Partition([]string{cut}, rest); err != nil {
					t.Fatal(err)
				}
				if err := y.Close(); err != nil {
					t.Fatal(err)
				}
				register(t, ctx, "keepalive", reg, service, "z:1", opts)
				during := resolve(t, tt.name, clustertest.Client(t, c, "during", cut), service)

				if tt.stale {
					s := waitState(t, ctx, during, "a listing", func(s discovery.State) bool { return s.Listed })
					if !slices.Equal(s.Addrs(), []string{"x:1", "y:1"}) || s.Err != nil {
						t.Fatalf("want the stale set x and y served as current, have %v (err %v)", s.Addrs(), s.Err)
					}
					t.Logf("stale: %v at revision %d, with no error; the cluster has x and z", s.Addrs(), s.Rev)
					return
				}
				s := waitState(t, ctx, during, "an error", func(s discovery.State) bool { return s.Err != nil })
				if s.Listed {
					t.Fatalf("the resolver listed %v from a partitioned member", s.Addrs())
				}
				s = waitState(t, ctx, before, "an error", func(s discovery.State) bool { return s.Err != nil })
				t.Logf("the running resolver cannot vouch for %v: %v", s.Addrs(), s.Err)
				if err := c.HealAll(); err != nil {
					t.Fatal(err)
				}
				waitState(t, ctx, during, "x and z", hasAddrs("x:1", "z:1"))
				waitState(t, ctx, before, "x and z", hasAddrs("x:1", "z:1"))
			})
		})
	}
}

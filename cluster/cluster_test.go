package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"golang.org/x/sync/errgroup"
)

func TestZeroConfigStartsThreeMembersWithOneLeader(t *testing.T) {
	c := New(t, Config{})
	members := c.Members()
	if len(members) != 3 {
		t.Fatalf("got %d members, want 3", len(members))
	}
	ids := map[uint64]bool{}
	leaders := 0
	for i, m := range members {
		if want := fmt.Sprintf("m%d", i); m.Name() != want {
			t.Errorf("member %d is named %q, want %q", i, m.Name(), want)
		}
		if m.ID() == 0 || ids[m.ID()] {
			t.Errorf("member %s has ID %x: zero or repeated", m.Name(), m.ID())
		}
		ids[m.ID()] = true
		if !m.Running() {
			t.Errorf("member %s is not running", m.Name())
		}
		if m.IsLeader() {
			leaders++
		}
	}
	if leaders != 1 {
		t.Errorf("%d members believe they lead, want 1", leaders)
	}
	lead := leader(t, c)
	if !lead.IsLeader() {
		t.Errorf("Leader returned %s, which does not believe it leads", lead.Name())
	}
	cfg := c.Config()
	if cfg.HeartbeatInterval != 10*time.Millisecond || cfg.ElectionTimeout != 100*time.Millisecond || cfg.Durable {
		t.Errorf("zero Config filled in as %+v, want the fast profile", cfg)
	}
	if err := c.WaitHealthy(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	cli, err := c.Client("c1")
	if err != nil {
		t.Fatal(err)
	}
	put(t, cli, "k", "v")
	if got := get(t, cli, "k"); got != "v" {
		t.Errorf("read back %q, want v", got)
	}
	again, err := c.Client("c1")
	if err != nil || again != cli {
		t.Errorf("Client(c1) a second time returned %p, %v; want the same client %p", again, err, cli)
	}
}

func TestConfigErrorsNameTheField(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{name: "negative members", cfg: Config{Members: -1}, want: "Config.Members is -1; valid: 1 to 9"},
		{name: "ten members", cfg: Config{Members: 10}, want: "Config.Members is 10; valid: 1 to 9"},
		{name: "sub-millisecond heartbeat", cfg: Config{HeartbeatInterval: 1500 * time.Microsecond}, want: "Config.HeartbeatInterval is 1.5ms"},
		{name: "election under five heartbeats", cfg: Config{HeartbeatInterval: 50 * time.Millisecond, ElectionTimeout: 200 * time.Millisecond}, want: "less than five heartbeats"},
		{name: "negative election", cfg: Config{ElectionTimeout: -time.Second}, want: "must not be negative"},
		{name: "election too long", cfg: Config{ElectionTimeout: time.Minute}, want: "etcd's limit of 50s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Start(context.Background(), tc.cfg)
			if err == nil {
				c.Close()
				t.Fatalf("Start(%+v) succeeded, want an error", tc.cfg)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
		})
	}
}

func TestSizes(t *testing.T) {
	for _, n := range []int{1, 5} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			c := New(t, Config{Members: n})
			if got := len(c.Members()); got != n {
				t.Fatalf("got %d members, want %d", got, n)
			}
			cli, err := c.Client("c1")
			if err != nil {
				t.Fatal(err)
			}
			put(t, cli, "k", "v")
		})
	}
}

func TestEightClustersInParallel(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 24 members")
	}
	// Eight clusters live at once, each written and read while the
	// others run. Real clock, 24 members: raft's timing is stretched on a
	// loaded machine (loadProof); that clusters share no state does not
	// depend on it. They start two at a time, each start with a deadline
	// of its own: 24 members starting together on a busy 2-core machine
	// spend their start on one another, and that is not what this tests.
	clusters := make([]*Cluster, 8)
	t.Cleanup(func() {
		for _, c := range clusters {
			if c != nil {
				c.Close()
			}
		}
	})
	var starts errgroup.Group
	starts.SetLimit(2)
	for i := range clusters {
		starts.Go(func() error {
			c, err := Start(testCtx(t), loadProof(Config{}))
			if err != nil {
				return fmt.Errorf("cluster %d: %w", i, err)
			}
			clusters[i] = c
			return nil
		})
	}
	if err := starts.Wait(); err != nil {
		t.Fatal(err)
	}
	// Goroutines rather than t.Parallel alone: -parallel defaults to
	// GOMAXPROCS, which would run only two at once on a 2-core machine.
	var g errgroup.Group
	for i, c := range clusters {
		g.Go(func() error {
			cli, err := c.Client("c")
			if err != nil {
				return err
			}
			ctx := testCtx(t)
			// Each tried again until ctx ends: on a loaded machine a
			// leader may change under a request, which then times out.
			if err := tryAgain(ctx, func() error { _, err := cli.Put(ctx, "cluster", fmt.Sprint(i)); return err }); err != nil {
				return fmt.Errorf("cluster %d: put: %w", i, err)
			}
			var resp *clientv3.GetResponse
			if err := tryAgain(ctx, func() (err error) { resp, err = cli.Get(ctx, "cluster"); return err }); err != nil {
				return fmt.Errorf("cluster %d: get: %w", i, err)
			}
			if got := string(resp.Kvs[0].Value); got != fmt.Sprint(i) {
				return fmt.Errorf("cluster %d read %q: clusters share state", i, got)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	for i, c := range clusters {
		if err := c.Close(); err != nil {
			t.Errorf("cluster %d: close: %v", i, err)
		}
	}
}

func TestCloseRemovesTempDirAndIsIdempotent(t *testing.T) {
	c, err := Start(context.Background(), Config{})
	if err != nil {
		t.Fatal(err)
	}
	dir := c.Dir()
	if _, err := os.Stat(filepath.Join(dir, "m0")); err != nil {
		t.Fatalf("member data dir missing while running: %v", err)
	}
	// Should this process die before Close, its dir is swept by the next
	// sweeper of TempPrefixes: it names this process.
	if own := TempPrefixes()[0] + strconv.Itoa(os.Getpid()) + "-"; !strings.HasPrefix(filepath.Base(dir), own) {
		t.Errorf("temp dir %s does not start with %s, so a sweep would not find it", filepath.Base(dir), own)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("temp dir %s still there after Close (stat: %v)", dir, err)
	}
	m := c.Members()[0]
	for name, call := range map[string]func() error{
		"Kill":            m.Kill,
		"Stop":            m.Stop,
		"Restart":         func() error { return m.Restart(context.Background()) },
		"HealAll":         c.HealAll,
		"Isolate":         func() error { return c.Isolate("m0") },
		"Heal":            func() error { return c.Heal("m0") },
		"SetLink":         func() error { return c.SetLink("m0", "m1", Blackholed()) },
		"Overlay.Set":     func() error { return c.NewOverlay().Set("m0", "m1", Blackholed()) },
		"Client":          func() error { _, err := c.Client("late"); return err },
		"Leader":          func() error { _, err := c.Leader(context.Background()); return err },
		"Member":          func() error { _, err := c.Member("m0"); return err },
		"AddMember":       func() error { _, err := c.AddMember(context.Background()); return err },
		"ClientEndpoints": func() error { _, err := c.ClientEndpoints("late"); return err },
		"CrashClient":     func() error { return c.CrashClient("late") },
		"RestartClient":   func() error { _, err := c.RestartClient("late"); return err },
	} {
		if err := call(); !errors.Is(err, ErrClosed) {
			t.Errorf("%s after Close returned %v, want ErrClosed", name, err)
		}
	}
}

// Close on a zero Cluster or a nil *Cluster has nothing to close and says
// so with nil; every other call on a zero Cluster is ErrClosed, never a
// panic.
func TestZeroAndNilCluster(t *testing.T) {
	var nilCluster *Cluster
	if err := nilCluster.Close(); err != nil {
		t.Errorf("Close on a nil *Cluster: %v", err)
	}
	var c Cluster
	for range 2 {
		if err := c.Close(); err != nil {
			t.Errorf("Close on a zero Cluster: %v", err)
		}
	}
	var zero Cluster // not closed either
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"Client", func() error { _, err := zero.Client("c1"); return err }},
		{"NewClient", func() error { _, err := zero.NewClient("c1", ClientConfig{}); return err }},
		{"ClientEndpoints", func() error { _, err := zero.ClientEndpoints("c1"); return err }},
		{"CrashClient", func() error { return zero.CrashClient("c1") }},
		{"RestartClient", func() error { _, err := zero.RestartClient("c1"); return err }},
		{"Member", func() error { _, err := zero.Member("m0"); return err }},
		{"Leader", func() error { _, err := zero.Leader(context.Background()); return err }},
		{"AddMember", func() error { _, err := zero.AddMember(context.Background()); return err }},
		{"WaitHealthy", func() error { return zero.WaitHealthy(context.Background()) }},
		{"SetLink", func() error { return zero.SetLink("m0", "m1", Blackholed()) }},
		{"SetLinks", func() error { return zero.SetLinks("m0", "m1", Blackholed()) }},
		{"LinkCondition", func() error { _, err := zero.LinkCondition("m0", "m1"); return err }},
		{"Partition", func() error { return zero.Partition([]string{"m0"}, []string{"m1"}) }},
		{"Isolate", func() error { return zero.Isolate("m0") }},
		{"Heal", func() error { return zero.Heal("m0") }},
		{"HealAll", zero.HealAll},
		{"Overlay.Set", func() error { return zero.NewOverlay().Set("m0", "m1", Blackholed()) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "never started") {
				t.Errorf("got %v, want ErrClosed saying the cluster was never started", err)
			}
		})
	}
	if got := zero.Links(); got != nil {
		t.Errorf("Links on a zero Cluster: %v, want none", got)
	}
	if got := zero.ClientNames(); got != nil {
		t.Errorf("ClientNames on a zero Cluster: %v, want none", got)
	}
	if err := zero.Close(); err != nil {
		t.Errorf("Close on a zero Cluster: %v", err)
	}
}

func TestDataDirIsKeptAndLogDirGetsOneFilePerMember(t *testing.T) {
	data, logs := t.TempDir(), t.TempDir()
	c, err := Start(context.Background(), Config{DataDir: data, LogDir: logs})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"m0", "m1", "m2"} {
		if _, err := os.Stat(filepath.Join(data, m, "member")); err != nil {
			t.Errorf("data of %s not kept in Config.DataDir: %v", m, err)
		}
		b, err := os.ReadFile(filepath.Join(logs, m+".log"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "etcd server") {
			t.Errorf("%s.log has no etcd server lines:\n%.500s", m, b)
		}
	}
	if _, err := Start(context.Background(), Config{DataDir: data}); err == nil || !strings.Contains(err.Error(), "already holds member data") {
		t.Errorf("Start on a used DataDir returned %v, want an error saying it holds member data", err)
	}
}

func TestStartFailureNamesMemberCauseAndLogTail(t *testing.T) {
	data := t.TempDir()
	// A file where m1's data directory should be: m1 cannot start.
	if err := os.WriteFile(filepath.Join(data, "m1"), []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Start(context.Background(), Config{DataDir: data})
	if err == nil {
		c.Close()
		t.Fatal("Start succeeded with m1's data dir blocked by a file")
	}
	msg := err.Error()
	for _, want := range []string{"member m1 failed to start", "not a directory", "last lines of m1's log"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error does not say %q:\n%s", want, msg)
		}
	}
}

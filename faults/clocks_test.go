package faults_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/internal/patience"
)

// world is what one fault's case sees: the cluster, the Env, and what the
// case noted before the fault went in.
type world struct {
	c      *cluster.Cluster
	env    *faults.Env
	leader *cluster.Member // the leader before the fault
	term   uint64          // its term
	lease  clientv3.LeaseID
	event  string // the Env's last event, as describe writes it
}

// clockCase is one fault of the vocabulary and the effect it must have,
// the same on both clocks.
type clockCase struct {
	fault   string
	members int // 0 means 3
	// auth, if set, turns auth on; c1 then speaks as its first user.
	auth *cluster.AuthConfig
	// effect checks, while the fault is in force, what it must have done.
	effect func(ctx context.Context, w *world) error
}

var clockCases = []clockCase{
	{fault: "kill(leader)", effect: func(ctx context.Context, w *world) error {
		if w.leader.Running() {
			return fmt.Errorf("the killed leader %s still runs", w.leader.Name())
		}
		return newLeader(ctx, w)
	}},
	{fault: "stop(follower)", effect: func(ctx context.Context, w *world) error {
		if down := downMembers(w.c); len(down) != 1 {
			return fmt.Errorf("members down: %v; want one", down)
		}
		return nil
	}},
	{fault: "isolate(leader)", effect: newLeader},
	{fault: "freeze(leader)", effect: func(ctx context.Context, w *world) error {
		if err := newLeader(ctx, w); err != nil {
			return err
		}
		// Unlike an isolated one, it has run no code to learn it lost.
		if !w.leader.Frozen() || !w.leader.IsLeader() {
			return fmt.Errorf("the frozen old leader %s: frozen %v, believes it leads %v; want both", w.leader.Name(), w.leader.Frozen(), w.leader.IsLeader())
		}
		return nil
	}},
	{fault: "isolate(pinned c1)", effect: func(ctx context.Context, w *world) error {
		// The member c1's session is on goes dark, its connections open:
		// every link of it blackholed, 2 peers and 1 client, both ways.
		return blackholed(w.c, (2+1)*2)
	}},
	{fault: "freeze(pinned c1)", effect: func(ctx context.Context, w *world) error {
		// c1's session keeps its lease alive on one member: that one.
		pinned, err := w.c.PinnedMember("c1")
		if err != nil {
			return err
		}
		for _, m := range w.c.Members() {
			if m.Frozen() != (m.Name() == pinned) {
				return fmt.Errorf("%s frozen %v; want only %s, c1's, frozen", m.Name(), m.Frozen(), pinned)
			}
		}
		return nil
	}},
	{fault: "partition(leader)", effect: newLeader},
	{fault: "partition(minority)", effect: func(ctx context.Context, w *world) error {
		return blackholed(w.c, 2*2) // one member cut from two, both ways
	}},
	{fault: "partition(majority)", effect: func(ctx context.Context, w *world) error {
		return blackholed(w.c, 2*2)
	}},
	{fault: "ring", members: 5, effect: func(ctx context.Context, w *world) error {
		if err := blackholed(w.c, 5*2); err != nil { // each member cut from its two far members
			return err
		}
		return observerWrite(ctx, w) // every member still reaches a majority
	}},
	{fault: "cut(leader → follower)", effect: func(ctx context.Context, w *world) error {
		return blackholed(w.c, 1)
	}},
	{fault: "delay(client c1, 200ms±0s)", effect: func(ctx context.Context, w *world) error {
		t0 := time.Now()
		if _, err := clientOf(w, "c1").Put(ctx, "k", "delayed"); err != nil {
			return err
		}
		if took := time.Since(t0); took < 400*time.Millisecond {
			return fmt.Errorf("a put through links delayed 200ms each way took %v", took)
		}
		return nil
	}},
	{fault: "isolate(client c1)", effect: c1CannotWrite},
	{fault: "pause(client c1)", effect: c1CannotWrite},
	{fault: "reset(client c1)", effect: c1CannotWrite},
	{fault: "lose-responses(client c1)", effect: func(ctx context.Context, w *world) error {
		if err := c1CannotWrite(ctx, w); err != nil {
			return err
		}
		// The request went through: the write is there, its answer is not.
		resp, err := clustertest.Observer(tb(ctx), w.c.Members()...).Get(ctx, "k")
		if err != nil {
			return err
		}
		if len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != "c1" {
			return fmt.Errorf("c1's write whose answer was lost is not in etcd: %v", resp.Kvs)
		}
		return nil
	}},
	{fault: "crash(client c1)", effect: func(ctx context.Context, w *world) error {
		if _, err := w.c.Client("c1"); !errors.Is(err, cluster.ErrCrashed) {
			return fmt.Errorf("Client(c1) of a crashed client = %v; want ErrCrashed", err)
		}
		return nil
	}},
	{fault: "revoke-lease(lock-holder L)", effect: func(ctx context.Context, w *world) error {
		resp, err := clustertest.Observer(tb(ctx), w.c.Members()...).TimeToLive(ctx, w.lease)
		if err != nil {
			return err
		}
		if resp.TTL != -1 {
			return fmt.Errorf("the revoked lease has TTL %d; want gone (-1)", resp.TTL)
		}
		return nil
	}},
	{fault: "flap(isolate(client c1), down 200ms, up 200ms, ×3)", effect: func(ctx context.Context, w *world) error {
		// Three cycles, each an event of its own, then c1 writes again.
		within := patience.Scale(20 * time.Second)
		deadline := time.Now().Add(within)
		for {
			var cycles []string
			for _, ev := range w.env.Log().Events() {
				if ev.Action == "isolate" && strings.Contains(ev.Detail, "flap ") && ev.Healed {
					cycles = append(cycles, ev.Detail)
				}
			}
			if len(cycles) == 3 {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("healed cycles %q within %v; want flap 1/3, 2/3 and 3/3", cycles, within)
			}
			time.Sleep(50 * time.Millisecond)
		}
		_, err := clientOf(w, "c1").Put(ctx, "k", "after the flap")
		return err
	}},
	{fault: "expire-token(client c1)", auth: &cluster.AuthConfig{
		Users: []cluster.User{{Name: "app", Password: "pw", Roles: []string{"app"}}},
		Roles: []cluster.Role{{Name: "app", Prefix: "k"}},
	}, effect: func(ctx context.Context, w *world) error {
		if !strings.Contains(w.event, "expired the tokens of user app (auth revision") {
			return fmt.Errorf("the event %q does not say whose tokens expired", w.event)
		}
		// clientv3 authenticates again and carries on.
		_, err := clientOf(w, "c1").Put(ctx, "k", "after")
		return err
	}},
	{fault: "delete(key:k)", effect: func(ctx context.Context, w *world) error {
		resp, err := clustertest.Observer(tb(ctx), w.c.Members()...).Get(ctx, "k")
		if err != nil || len(resp.Kvs) != 0 {
			return fmt.Errorf("k after the foreign delete: %v (err %v); want it gone", resp.Kvs, err)
		}
		return nil
	}},
	{fault: "put(key:k, foreign)", effect: func(ctx context.Context, w *world) error {
		resp, err := clustertest.Observer(tb(ctx), w.c.Members()...).Get(ctx, "k")
		if err != nil || len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != "foreign" {
			return fmt.Errorf("k after the foreign put: %v (err %v); want foreign", resp.Kvs, err)
		}
		return nil
	}},
	{fault: "leader-storm(every 200ms)", effect: func(ctx context.Context, w *world) error {
		return termsPass(ctx, w, 2, 2*time.Second)
	}},
	{fault: "leader-kill-storm(every 500ms)", effect: func(ctx context.Context, w *world) error {
		return termsPass(ctx, w, 1, 3*time.Second)
	}},
	{fault: "compact", effect: func(ctx context.Context, w *world) error {
		_, err := clustertest.Observer(tb(ctx), w.c.Members()...).Get(ctx, "k", clientv3.WithRev(1))
		if !errors.Is(err, rpctypes.ErrCompacted) {
			return fmt.Errorf("a read at revision 1 after the compaction = %v; want ErrCompacted", err)
		}
		return nil
	}},
	{fault: "replace(follower)", effect: func(ctx context.Context, w *world) error {
		// The event names the member replaced and its successor, which
		// joined with an empty data directory and caught up.
		_, added, ok := strings.Cut(w.event, " replaced by ")
		if !ok {
			return fmt.Errorf("the replace's event %q names no successor", w.event)
		}
		added = strings.TrimRight(strings.Fields(added)[0], "),")
		if len(w.c.Members()) != 3 {
			return fmt.Errorf("%d members after the replace; want 3", len(w.c.Members()))
		}
		m, err := w.c.Member(added)
		if err != nil {
			return err
		}
		got, err := clustertest.Observer(tb(ctx), m).Get(ctx, "k")
		if err != nil || len(got.Kvs) != 1 || string(got.Kvs[0].Value) != "before" {
			return fmt.Errorf("the new member %s reads k as %v (err %v); want before", added, got, err)
		}
		return nil
	}},
	{fault: "defrag(all-members)", effect: func(ctx context.Context, w *world) error {
		if !strings.Contains(w.event, "db size") {
			return fmt.Errorf("the defrag's event %q does not give the db sizes", w.event)
		}
		return nil
	}},
}

// Every fault of the vocabulary has the same observable effect on the
// real clock and on the virtual one. The real clock is the point: the
// same effect on both shows that the virtual clock changes nothing a fault
// does. The real-clock cases' waits scale with the machine's load
// (patience.Scale). They run one at a time, like the virtual ones: four
// real-clock clusters side by side on a loaded 2-core machine, each with
// the fast profile's 100 ms election timeout, elect leader after leader
// and some never start (seen at load 27 under -race).
//
// Under -race every fault runs on the virtual clock and only the first on
// the real one as well, so that the detector sees every fault and both
// clocks: the real-clock cases are most of the test's time (at load 25,
// 13 of them took 200 s, 14 virtual ones 32 s), and what they add, the
// same effect on both clocks, the detector does not change. make test
// runs every case on both clocks once more without it (the Makefile's
// SAMPLED_TESTS).
func TestEveryFaultOnBothClocks(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two clusters a fault")
	}
	covered := map[string]bool{}
	for i, cc := range clockCases {
		f, err := faults.Parse(cc.fault)
		if err != nil {
			t.Fatal(err)
		}
		covered[strings.SplitN(f.String(), "(", 2)[0]] = true
		for _, clock := range cluster.Clocks() {
			if patience.RaceEnabled && clock == cluster.ClockReal && i > 0 {
				continue
			}
			t.Run(cc.fault+"/"+string(clock), func(t *testing.T) {
				onClock(t, clock, func(t *testing.T) { runClockCase(t, cluster.Config{Clock: clock}, cc, f) })
			})
		}
	}
	for _, name := range faults.Actions() {
		if !covered[name] {
			t.Errorf("no case injects %s on both clocks", name)
		}
	}
}

func onClock(t *testing.T, clock cluster.Clock, f func(t *testing.T)) {
	if clock == cluster.ClockVirtual {
		clustertest.Virtual(t, f)
		return
	}
	f(t)
}

// runClockCase runs one case on a cluster of cfg (its clock, and whether
// its members are processes); the case gives the members and auth.
func runClockCase(t *testing.T, cfg cluster.Config, cc clockCase, f faults.Fault) {
	clock := cfg.Clock
	ctx := context.WithValue(clustertest.Context(t), tbKey{}, testing.TB(t))
	cfg.Members, cfg.Auth = cmpOr(cc.members, 3), cc.auth
	c, env := startConfig(t, cfg, "c1")
	w := &world{c: c, env: env}
	var err error
	if w.leader, err = c.Leader(ctx); err != nil {
		t.Fatal(err)
	}
	w.term = w.leader.Term()
	if _, err := clustertest.Observer(t, c.Members()...).Put(ctx, "k", "before"); err != nil {
		t.Fatal(err)
	}
	s := session(ctx, t, clustertest.Client(t, c, "c1"), 60)
	w.lease = s.Lease()
	acquired(ctx, env, "c1", "L", w.lease)
	heal := inject(ctx, t, env, f)
	w.event = describe(lastEvent(t, env))
	if err := cc.effect(ctx, w); err != nil {
		t.Errorf("%s on the %s clock: %v (event: %s)", cc.fault, clock, err, w.event)
	}
	if err := heal(ctx); err != nil {
		t.Fatalf("heal: %v", err)
	}
	healthy(ctx, t, c)
}

func startOn(t *testing.T, clock cluster.Clock, n int, clients ...string) (*cluster.Cluster, *faults.Env) {
	t.Helper()
	return startAuthOn(t, clock, n, nil, clients...)
}

// startAuthOn is startOn with auth set as given; each client speaks as
// auth's first user.
func startAuthOn(t *testing.T, clock cluster.Clock, n int, auth *cluster.AuthConfig, clients ...string) (*cluster.Cluster, *faults.Env) {
	t.Helper()
	return startConfig(t, cluster.Config{Members: n, Clock: clock, Auth: auth}, clients...)
}

// startConfig starts a cluster of cfg with the named clients; each speaks
// as cfg.Auth's first user, if auth is on.
func startConfig(t *testing.T, cfg cluster.Config, clients ...string) (*cluster.Cluster, *faults.Env) {
	t.Helper()
	c := cluster.New(t, cfg)
	var cc cluster.ClientConfig
	if cfg.Auth != nil {
		cc.User = cfg.Auth.Users[0].Name
	}
	for _, name := range clients {
		if _, err := c.NewClient(name, cc); err != nil {
			t.Fatal(err)
		}
	}
	return c, faults.NewEnv(c, faults.Config{Timeout: patience.Scale(30 * time.Second)})
}

type tbKey struct{}

func tb(ctx context.Context) testing.TB { return ctx.Value(tbKey{}).(testing.TB) }

func cmpOr(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

func clientOf(w *world, name string) *clientv3.Client {
	cli, err := w.c.Client(name)
	if err != nil {
		panic(err)
	}
	return cli
}

// newLeader waits for a leader other than the one before the fault.
func newLeader(ctx context.Context, w *world) error {
	within := patience.Scale(10 * time.Second)
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		lctx, cancel := context.WithTimeout(ctx, time.Second)
		m, err := w.c.Leader(lctx)
		cancel()
		if err == nil && m != w.leader {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("no leader other than %s within %v", w.leader.Name(), within)
}

// blackholed checks that exactly n directed links are blackholed.
func blackholed(c *cluster.Cluster, n int) error {
	var cut []string
	for _, l := range c.Links() {
		if l.Condition.Mode == cluster.Blackhole {
			cut = append(cut, l.From+"→"+l.To)
		}
	}
	if len(cut) != n {
		return fmt.Errorf("blackholed links %v; want %d", cut, n)
	}
	return nil
}

// observerWrite checks that a write goes through within 30s (scaled by
// patience.Scale). A member that reaches no leader times a forwarded write
// out, so it tries again.
func observerWrite(ctx context.Context, w *world) error {
	cli := clustertest.Observer(tb(ctx), w.c.Members()...)
	deadline := time.Now().Add(patience.Scale(30 * time.Second))
	for {
		wctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		_, err := cli.Put(wctx, "k", "during")
		cancel()
		if err == nil || time.Now().After(deadline) {
			return err
		}
	}
}

// c1CannotWrite checks that a write by c1 gets no answer within a second.
func c1CannotWrite(ctx context.Context, w *world) error {
	wctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if _, err := clientOf(w, "c1").Put(wctx, "k", "c1"); err == nil {
		return errors.New("c1 wrote and was answered")
	}
	return nil
}

// termsPass waits up to within (scaled by patience.Scale) for the leader's
// term to pass the one before the fault by at least n.
func termsPass(ctx context.Context, w *world, n uint64, within time.Duration) error {
	within = patience.Scale(within)
	deadline := time.Now().Add(within)
	var seen []uint64
	for time.Now().Before(deadline) {
		var top uint64
		for _, m := range w.c.Members() {
			top = max(top, m.Term())
		}
		if len(seen) == 0 || seen[len(seen)-1] != top {
			seen = append(seen, top)
		}
		if top >= w.term+n {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("terms seen %v within %v; want at least %d past %d", slices.Compact(seen), within, n, w.term)
}

package program

import (
	"context"
	"os"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/cluster"
)

// TestSpareAfterCrash: a program taken from Prestart's is replaced by a
// spare, and the client restarted after a crash — a new etcd client with
// the same endpoints — takes that spare rather than starting cold; Close
// ends the spare nobody took. Real clock, here and below: programs are
// other OS processes on loopback sockets.
func TestSpareAfterCrash(t *testing.T) {
	c := cluster.New(t, cluster.Config{Clock: cluster.ClockReal})
	cli, err := c.Client("c1")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Argv: []string{os.Args[0], "-test.run=^$", "etcdsim-test-adapter", "mutex"}}
	st, err := Prestart(context.Background(), cfg, map[string]*clientv3.Client{"c1": cli})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, ok := takeWarm(Config{Argv: cfg.Argv, Dir: "/"}, cli); ok {
		t.Fatal("a program started in another directory was handed out")
	}
	first, ok := takeWarm(cfg, cli)
	if !ok {
		t.Fatal("the constructor found no program Prestart started")
	}
	watchClient(first, cli)
	if err := c.CrashClient("c1"); err != nil {
		t.Fatal(err)
	}
	<-first.dead // the crash killed it
	again, err := c.RestartClient("c1")
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		p, ok := takeWarm(cfg, again)
		if ok {
			if p == first {
				t.Fatal("the crashed program was handed out again")
			}
			p.close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no spare was ready for the restarted client within 60s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	st.Close()
	st.Close() // idempotent
	if st.ready != nil || st.progs != nil {
		t.Fatalf("Close left %d ready programs and %d started", len(st.ready), len(st.progs))
	}
	if got := c.Attached(startedKey{}); got != nil {
		t.Fatalf("Close left the cluster keeping %v", got)
	}
	if _, ok := takeWarm(cfg, again); ok {
		t.Fatal("a program was handed out after Close")
	}
}

// TestProgramsTravelWithTheirCluster: the programs started for one
// cluster's clients are never handed to a client of the same name in
// another cluster, and a client no cluster made starts its program cold.
func TestProgramsTravelWithTheirCluster(t *testing.T) {
	a := cluster.New(t, cluster.Config{Clock: cluster.ClockReal, Members: 1})
	b := cluster.New(t, cluster.Config{Clock: cluster.ClockReal, Members: 1})
	cliA, err := a.Client("c1")
	if err != nil {
		t.Fatal(err)
	}
	cliB, err := b.Client("c1")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Argv: []string{os.Args[0], "-test.run=^$", "etcdsim-test-adapter", "mutex"}}
	st, err := Prestart(context.Background(), cfg, map[string]*clientv3.Client{"c1": cliA})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, ok := takeWarm(cfg, cliB); ok {
		t.Fatal("another cluster's client c1 took a program started for this cluster's c1")
	}
	plain, err := clientv3.New(clientv3.Config{Endpoints: cliA.Endpoints()})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if _, ok := takeWarm(cfg, plain); ok {
		t.Fatal("a client no cluster made took a program")
	}
	p, ok := takeWarm(cfg, cliA)
	if !ok {
		t.Fatal("the cluster's own client c1 found no program")
	}
	p.close()
}

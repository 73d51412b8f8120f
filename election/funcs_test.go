package election_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/election"
	"github.com/etcdsim/etcdsim/internal/patience"
)

// toyParticipant stands for a library's participation whose wait takes no
// context: etcd's concurrency.Election on a session of its own, whose
// leadership context ends on Stop or when the session's lease is gone.
type toyParticipant struct {
	s      *concurrency.Session
	e      *concurrency.Election
	value  string
	ctx    context.Context
	cancel context.CancelFunc
}

func toyJoin(cli *clientv3.Client, prefix string) func(value string) (election.Participant, error) {
	return func(value string) (election.Participant, error) {
		s, err := concurrency.NewSession(cli, concurrency.WithTTL(2))
		if err != nil {
			return nil, err
		}
		ctx, cancel := context.WithCancel(context.Background())
		context.AfterFunc(s.Ctx(), cancel) // the lease is gone
		return &toyParticipant{s: s, e: concurrency.NewElection(s, prefix), value: value, ctx: ctx, cancel: cancel}, nil
	}
}

func (p *toyParticipant) WaitForLeadership() (context.Context, error) {
	if err := p.e.Campaign(p.ctx, p.value); err != nil {
		return nil, err
	}
	return p.ctx, nil
}

func (p *toyParticipant) Stop() {
	p.cancel()
	p.s.Close() // revokes the lease: resigns a leader, withdraws a candidate
}

// A library's participation made an Elector with Funcs: a candidate leads,
// another waits and gives up when its context ends, the leader's Done
// closes when its lease is gone, and Close stops the campaigns before the
// library's client.
func TestFuncs(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		c := cluster.New(t, cluster.Config{})
		cli := clustertest.Client(t, c, "c1")
		ctx := clustertest.Context(t)
		var candidates []int // how many candidates were left each time the library's client was stopped
		e := &election.Funcs{Join: toyJoin(cli, "E/"), NoFencing: "the toy hides its revision",
			Stop: func() {
				resp, err := cli.Get(ctx, "E/", clientv3.WithPrefix())
				if err != nil {
					t.Error(err)
					return
				}
				candidates = append(candidates, len(resp.Kvs))
			}}
		a, err := e.Campaign(ctx, "a")
		if err != nil {
			t.Fatal(err)
		}
		if a.Value() != "a" || a.Term() != 0 {
			t.Errorf("leader a: value %q, term %d", a.Value(), a.Term())
		}
		wctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		if _, err := e.Campaign(wctx, "b"); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("a campaign whose context ended = %v, want DeadlineExceeded", err)
		}
		resp, err := cli.Get(ctx, "E/", clientv3.WithPrefix())
		if err != nil || len(resp.Kvs) != 1 {
			t.Fatalf("candidates left after b gave up: %v, %v; want a's alone", resp, err)
		}
		if _, err := cli.Revoke(ctx, clientv3.LeaseID(resp.Kvs[0].Lease)); err != nil {
			t.Fatal(err)
		}
		select {
		case <-a.Done():
		case <-ctx.Done():
			t.Fatal("the leader's Done is open after its lease was revoked")
		}
		cc, err := e.Campaign(ctx, "c")
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		select {
		case <-cc.Done():
		default:
			t.Error("a leader's Done is open after Close")
		}
		if err := e.Close(); err != nil || len(candidates) != 1 || candidates[0] != 0 {
			t.Errorf("second Close = %v, the client stopped with candidates left %v; want nil, once with none left", err, candidates)
		}
		if _, err := e.Campaign(ctx, "d"); !errors.Is(err, election.ErrClosed) {
			t.Errorf("Campaign after Close = %v, want ErrClosed", err)
		}
		if e.Unfenced() != "the toy hides its revision" {
			t.Errorf("Unfenced = %q", e.Unfenced())
		}
	})
}

// A Funcs with no Join, or whose Join fails, says so.
func TestFuncsBadJoin(t *testing.T) {
	if _, err := (&election.Funcs{}).Campaign(context.Background(), "a"); err == nil || !strings.Contains(err.Error(), "no Join") {
		t.Errorf("Campaign with no Join = %v, want an error saying so", err)
	}
	failing := &election.Funcs{Join: func(string) (election.Participant, error) { return nil, errors.New("no server") }}
	if _, err := failing.Campaign(context.Background(), "a"); err == nil || !strings.Contains(err.Error(), "no server") {
		t.Errorf("Campaign whose Join fails = %v, want its error", err)
	}
}

// A library's participation whose wait takes no context — etcd's
// concurrency.Election behind such a wait stands for it — made an Elector
// with Funcs.
//
// The example runs a cluster on the real clock: an Example has no
// *testing.T, so it cannot enter a synctest bubble. Its deadline stretches
// with the machine's load (patience.Scale).
func ExampleFuncs() {
	ctx, cancel := context.WithTimeout(context.Background(), patience.Scale(time.Minute))
	defer cancel()
	c, err := cluster.Start(ctx, cluster.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	cli, _ := c.Client("app")

	e := &election.Funcs{Join: toyJoin(cli, "E/"), Stop: func() { fmt.Println("the library's client ends") }}
	l, err := e.Campaign(ctx, "a")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("leading with", l.Value())
	fmt.Println("resign:", l.Resign(ctx))
	e.Close()
	// Output:
	// leading with a
	// resign: <nil>
	// the library's client ends
}

package faults_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/google/go-cmp/cmp"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// acquired records, on env's recorder, that client acquired lock key under
// lease.
func acquired(ctx context.Context, env *faults.Env, client, key string, lease clientv3.LeaseID) {
	env.Recorder().Invoke(ctx, client, checker.KindAcquire, key, checker.Input{}).
		OK(ctx, checker.Output{Lease: int64(lease)})
}

// What the workload records decides who holds a lock, leads an election
// and owns a lease: one record per step, no second report.
func TestRecordedOperationsDecideHolders(t *testing.T) {
	ctx := t.Context()
	env := faults.NewEnv(nil, faults.Config{})
	rec := env.Recorder()
	do := func(client string, kind checker.Kind, key string, out checker.Output) {
		rec.Invoke(ctx, client, kind, key, checker.Input{}).OK(ctx, out)
	}
	do("c3", checker.KindRegister, "svc", checker.Output{Lease: 7})
	do("c1", checker.KindAcquire, "L", checker.Output{Lease: 1})
	do("c1", checker.KindRelease, "L", checker.Output{})
	do("c2", checker.KindAcquire, "L", checker.Output{Lease: 2})
	do("c1", checker.KindRelease, "L", checker.Output{})                                                   // not the holder: no effect
	rec.Invoke(ctx, "c2", checker.KindRelease, "L", checker.Input{}).Fail(ctx, errors.New("refused"))      // failed: still holds
	rec.Invoke(ctx, "c4", checker.KindAcquire, "L", checker.Input{}).Unknown(ctx, errors.New("timed out")) // unknown: not a holder
	do("c1", checker.KindCampaign, "E", checker.Output{})
	do("c1", checker.KindResign, "E", checker.Output{})
	do("c3", checker.KindCampaign, "F", checker.Output{})
	do("c5", checker.KindCampaign, "G", checker.Output{Lease: 5})
	do("c5", checker.KindAcquire, "M", checker.Output{Lease: 5})
	rec.Instant(ctx, "c5", checker.KindCrash, "", checker.Input{}, checker.Output{}) // frees G, M and its lease
	do("c7/2", checker.KindAcquire, "N", checker.Output{Lease: 9})                   // a thread of c7: c7 holds N
	do("c8/1", checker.KindAcquire, "P", checker.Output{})
	rec.Instant(ctx, "c8", checker.KindCrash, "", checker.Input{}, checker.Output{}) // c8's crash ends its threads' holds
	type answer struct {
		Client string
		Lease  clientv3.LeaseID
		OK     bool
	}
	holder := func(c string, ok bool) answer { return answer{Client: c, OK: ok} }
	lease := func(l clientv3.LeaseID, ok bool) answer { return answer{Lease: l, OK: ok} }
	got := map[string]answer{
		"lock L":      holder(env.LockHolder("L")),
		"lock M":      holder(env.LockHolder("M")),
		"lock N":      holder(env.LockHolder("N")),
		"lock P":      holder(env.LockHolder("P")),
		"lease of c7": lease(env.SessionLease("c7")),
		"election E":  holder(env.ElectionLeader("E")),
		"election F":  holder(env.ElectionLeader("F")),
		"election G":  holder(env.ElectionLeader("G")),
		"lease of c2": lease(env.SessionLease("c2")),
		"lease of c3": lease(env.SessionLease("c3")),
		"lease of c5": lease(env.SessionLease("c5")),
		"lease of c9": lease(env.SessionLease("c9")),
	}
	want := map[string]answer{
		"lock L":      {Client: "c2", OK: true},
		"lock M":      {},
		"lock N":      {Client: "c7", OK: true},
		"lock P":      {},
		"lease of c7": {Lease: 9, OK: true},
		"election E":  {},
		"election F":  {Client: "c3", OK: true},
		"election G":  {},
		"lease of c2": {Lease: 2, OK: true},
		"lease of c3": {Lease: 7, OK: true},
		"lease of c5": {},
		"lease of c9": {},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("holders (-want +got):\n%s", diff)
	}
}

// Step passes a running client, holds a paused one until it is resumed,
// and gives up when its context ends.
func TestGate(t *testing.T) {
	var g faults.Gate
	ctx := clustertest.Context(t)
	if err := g.Step(ctx, "c1"); err != nil {
		t.Fatalf("a running client's step: %v", err)
	}
	g.Pause("c1")
	stepped := make(chan error)
	go func() { stepped <- g.Step(ctx, "c1") }()
	if err := g.Step(ctx, "c2"); err != nil {
		t.Fatalf("another client's step while c1 is paused: %v", err)
	}
	select {
	case err := <-stepped:
		t.Fatalf("a paused client's step returned %v", err)
	default:
	}
	g.Resume("c1")
	if err := <-stepped; err != nil {
		t.Fatalf("the resumed client's step: %v", err)
	}
	g.Pause("c1")
	cctx, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	if err := g.Step(cctx, "c1"); err == nil || !strings.Contains(err.Error(), "faults: client c1 stopped") {
		t.Errorf("a paused client's step with an ending context: %v", err)
	}
}

// A fault that cannot apply right now says why, at once, and the event
// records it.
func TestInjectErrors(t *testing.T) {
	ctx := clustertest.Context(t)
	_, env := start(t, 3, "c1")
	acquired(ctx, env, "ghost", "G", 0)
	tests := []struct {
		name  string
		fault faults.Fault
		want  string
	}{
		{"lock nobody holds", faults.Pause(faults.LockHolder("L")), `pause(lock-holder L): resolving lock-holder L: nobody holds lock "L" now`},
		{"election nobody leads", faults.Isolate(faults.ElectionLeader("E")), `nobody leads election "E" now`},
		{"holder that is no client", faults.Pause(faults.LockHolder("G")), `resolved to "ghost", which is neither a member nor a client`},
		{"lease nobody reported", faults.RevokeLease(faults.Client("c1")), "no session lease known for client c1: its recipe has not told the harness its lease, so there is nothing to revoke; have what its lock, election or registration returns implement Lease (lock.Leaser, election.Leaser) or, for a lease a read-write lock's waiter holds before it is granted, have its locker implement Session (rwmutex.Sessioner)"},
		{"unknown member", faults.Kill(faults.Member(9)), "kill(m9): no member m9"},
		{"zero fault", faults.Fault{}, "zero Fault"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			heal, err := env.Inject(ctx, tt.fault)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Inject: %v; want it to say %q", err, tt.want)
			}
			if heal == nil || heal(ctx) != nil {
				t.Error("a failed injection's heal is not a harmless no-op")
			}
			if ev := lastEvent(t, env); ev.Err == "" {
				t.Errorf("event of a failed injection has no error: %s", describe(ev))
			}
		})
	}
}

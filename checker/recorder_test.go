package checker

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestRecorderConcurrentClients(t *testing.T) {
	ctx := t.Context()
	rec := NewRecorder(NewClock())
	rec.SetMeta(Meta{RunID: "run-1", Seed: 42})
	const clients, rounds = 8, 50
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			name := fmt.Sprintf("c%d", c)
			for i := range rounds {
				p := rec.Invoke(ctx, name, KindWrite, "x", Input{Value: fmt.Sprint(i)})
				switch i % 3 {
				case 0:
					p.OK(ctx, Output{Revision: int64(i + 1)})
				case 1:
					p.Fail(ctx, errors.New("rejected"))
				default:
					p.Unknown(ctx, errors.New("timed out"))
				}
			}
		})
	}
	wg.Go(func() {
		rec.AddFault(FaultEvent{Name: "kill(leader)", Targets: []string{"m1"}, Start: time.Millisecond})
	})
	wg.Wait()
	h := rec.History()
	if err := h.Validate(); err != nil {
		t.Fatalf("recorded history is invalid: %v", err)
	}
	if len(h.Ops) != clients*rounds || len(h.Faults) != 1 {
		t.Fatalf("got %d ops and %d faults, want %d and 1", len(h.Ops), len(h.Faults), clients*rounds)
	}
	count := map[Outcome]int{}
	for i, op := range h.Ops {
		count[op.Outcome]++
		if op.ID != i || op.Run != "run-1" {
			t.Errorf("op %d has ID %d and run %q", i, op.ID, op.Run)
		}
		if i > 0 && op.Call < h.Ops[i-1].Call {
			t.Errorf("op %d called at %s, before op %d at %s", i, op.Call, i-1, h.Ops[i-1].Call)
		}
		if op.Outcome == OutcomeUnknown && (op.Return != Infinity || op.GaveUp < op.Call || op.Error != "timed out") {
			t.Errorf("unknown op %s: return %d, gave up %s", op, op.Return, op.GaveUp)
		}
	}
	want := map[Outcome]int{OutcomeOK: 136, OutcomeFailed: 136, OutcomeUnknown: 128}
	if diff := cmp.Diff(want, count); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
	if h.Seed != 42 || h.End < h.Ops[len(h.Ops)-1].Call {
		t.Errorf("meta %+v, end %s", h.Meta, h.End)
	}
}

func TestRecorderCompletesOnce(t *testing.T) {
	ctx := t.Context()
	rec := NewRecorder(NewClock())
	p := rec.Invoke(ctx, "c1", KindAcquire, "/jobs", Input{})
	if err := p.OK(ctx, Output{Token: 7}); err != nil {
		t.Fatal(err)
	}
	for _, second := range []func() error{
		func() error { return p.OK(ctx, Output{Token: 8}) },
		func() error { return p.Fail(ctx, errors.New("no")) },
		func() error { return p.Unknown(ctx, errors.New("lost")) },
	} {
		if err := second(); !errors.Is(err, ErrCompleted) {
			t.Errorf("second completion returned %v, want ErrCompleted", err)
		}
	}
	op := rec.History().Ops[p.ID()]
	if op.Outcome != OutcomeOK || op.Output.Token != 7 || op.Error != "" {
		t.Errorf("the first completion did not stand: %s", op)
	}
}

func TestRecorderSnapshotOfPendingOps(t *testing.T) {
	ctx := t.Context()
	rec := NewRecorder(NewClock())
	p := rec.Invoke(ctx, "c1", KindAcquire, "/jobs", Input{})
	id := rec.Instant(ctx, "c2", KindCrash, "", Input{}, Output{})
	h := rec.History()
	pending, crashed := h.Ops[p.ID()], h.Ops[id]
	if pending.Outcome != OutcomeUnknown || pending.Return != Infinity || pending.Error != pendingError || pending.GaveUp > h.End {
		t.Errorf("pending op in snapshot: %+v", pending)
	}
	if crashed.Outcome != OutcomeOK || crashed.Call != crashed.Return {
		t.Errorf("instant op: %+v", crashed)
	}
	// Completing after the snapshot changes the recorder, not the snapshot.
	p.OK(ctx, Output{Token: 3})
	if h.Ops[p.ID()].Outcome != OutcomeUnknown || rec.History().Ops[p.ID()].Outcome != OutcomeOK {
		t.Error("a snapshot shares state with the recorder")
	}
	if err := h.Validate(); err != nil {
		t.Error(err)
	}
}

func TestRecorderRunID(t *testing.T) {
	clock := NewClock()
	rec := NewRecorder(clock)
	if got, want := rec.History().RunID, clock.Origin().Format(time.RFC3339Nano); got != want {
		t.Errorf("default RunID %q, want %q", got, want)
	}
	rec.SetMeta(Meta{Seed: 9})
	if h := rec.History(); h.RunID == "" || h.Seed != 9 {
		t.Errorf("SetMeta with an empty RunID: %+v", h.Meta)
	}
	if rec.Clock() != clock {
		t.Error("Clock() is not the recorder's clock")
	}
}

func TestRecorderMixedRunsAreInvalid(t *testing.T) {
	ctx := t.Context()
	a, b := NewRecorder(NewClock()), NewRecorder(NewClock())
	a.SetMeta(Meta{RunID: "run-a"})
	b.SetMeta(Meta{RunID: "run-b"})
	a.Invoke(ctx, "c1", KindAcquire, "/jobs", Input{}).OK(ctx, Output{})
	b.Invoke(ctx, "c2", KindAcquire, "/jobs", Input{}).OK(ctx, Output{})
	h := a.History()
	op := b.History().Ops[0]
	op.ID = 1
	h.Ops = append(h.Ops, op)
	checkResult(t, MutualExclusion(h, MutexOptions{}), VerdictInvalid, `recorded in run "run-b", but the history is of run "run-a"`)
}

package checker

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// seen is an observer that keeps what it heard.
type seen struct {
	mu  sync.Mutex // guards ops
	ops []string
}

func (s *seen) observe(_ context.Context, op Operation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	state := string(op.Outcome)
	if state == "" {
		state = "called"
	}
	s.ops = append(s.ops, op.Client+" "+string(op.Kind)+" "+state)
}

func TestObserverHearsEveryRecordOnce(t *testing.T) {
	ctx := t.Context()
	rec := NewRecorder(NewClock())
	var s seen
	stop := rec.Observe(s.observe)
	p := rec.Invoke(ctx, "c1", KindAcquire, "L", Input{})
	p.OK(ctx, Output{Token: 3, Lease: 0x10})
	rec.Invoke(ctx, "c2", KindAcquire, "L", Input{}).Unknown(ctx, errors.New("timed out"))
	rec.Invoke(ctx, "c2", KindRelease, "L", Input{}).Fail(ctx, errors.New("not held"))
	rec.Instant(ctx, "c1", KindCrash, "", Input{}, Output{})
	p.OK(ctx, Output{}) // a second completion is refused and not observed
	stop()
	rec.Invoke(ctx, "c3", KindAcquire, "L", Input{}) // after stop: not heard
	want := []string{
		"c1 acquire called", "c1 acquire ok",
		"c2 acquire called", "c2 acquire unknown",
		"c2 release called", "c2 release failed",
		"c1 crash ok",
	}
	if diff := cmp.Diff(want, s.ops); diff != "" {
		t.Errorf("observed (-want +got):\n%s", diff)
	}
}

func TestObserverSeesTheCompletedOperation(t *testing.T) {
	ctx := t.Context()
	rec := NewRecorder(NewClock())
	rec.SetMeta(Meta{RunID: "r1"})
	var got Operation
	rec.Observe(func(_ context.Context, op Operation) {
		if op.Outcome != "" {
			got = op
		}
	})
	rec.Invoke(ctx, "c1", KindAcquire, "L", Input{}).OK(ctx, Output{Token: 7, Lease: 0xabc})
	if got.Output.Token != 7 || got.Output.Lease != 0xabc || got.Run != "r1" || got.Return < got.Call {
		t.Errorf("observer saw %+v", got)
	}
}

func TestObserverRunsBeforeTheRecordingCallReturns(t *testing.T) {
	ctx := t.Context()
	rec := NewRecorder(NewClock())
	done := false
	rec.Observe(func(_ context.Context, op Operation) {
		if op.Kind == KindAcquire && op.Outcome == OutcomeOK {
			done = true
		}
	})
	rec.Invoke(ctx, "c1", KindAcquire, "L", Input{}).OK(ctx, Output{})
	if !done {
		t.Error("OK returned before the observer ran")
	}
}

func TestAddFaultKeepsTheLaterReportOfAnEvent(t *testing.T) {
	rec := NewRecorder(NewClock())
	rec.AddFault(FaultEvent{ID: 1, Name: "kill(leader)", Targets: []string{"m0"}, Start: 5})
	rec.AddFault(FaultEvent{ID: 2, Name: "pause(client c1)", Targets: []string{"c1"}, Start: 6})
	rec.AddFault(FaultEvent{Name: "compact", Start: 7, End: 7, Healed: true})
	rec.AddFault(FaultEvent{ID: 1, Name: "kill(leader)", Targets: []string{"m0"}, Start: 5, End: 9, Healed: true})
	h := rec.History()
	want := []FaultEvent{
		{ID: 1, Name: "kill(leader)", Targets: []string{"m0"}, Start: 5, End: 9, Healed: true},
		{ID: 2, Name: "pause(client c1)", Targets: []string{"c1"}, Start: 6},
		{Name: "compact", Start: 7, End: 7, Healed: true},
	}
	if diff := cmp.Diff(want, h.Faults); diff != "" {
		t.Errorf("faults (-want +got):\n%s", diff)
	}
	if !h.Faults[1].InForce() {
		t.Error("a fault reported injected and never healed is not in force")
	}
}

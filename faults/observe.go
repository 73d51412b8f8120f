package faults

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/etcdsim/etcdsim/checker"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// observe is the Env's checker.Observer. It learns from the recorded
// operations who holds which lock, who leads which election and which
// lease each client's keys are on, then fires every armed trigger that
// matches, before the recording call returns: a fault aimed at a lock's
// holder right after it acquires lands before that client's next step.
// Each trigger fires once.
func (e *Env) observe(ctx context.Context, op checker.Operation) {
	if op.Outcome == "" {
		return // only completed operations change who holds what
	}
	e.mu.Lock()
	e.learn(op)
	var fire []*armedTrigger
	for _, t := range e.armed {
		if !t.fired && t.trigger.On.matches(op) {
			t.fired = true
			fire = append(fire, t)
		}
	}
	e.mu.Unlock()
	for _, t := range fire {
		t.fire(ctx, op)
	}
}

// learn updates who holds what from one completed operation; e.mu must be
// held.
func (e *Env) learn(op checker.Operation) {
	op.Client = Process(op.Client)
	ok := op.Outcome == checker.OutcomeOK
	gone := op.Outcome != checker.OutcomeFailed // ok, or maybe: no longer to be aimed at
	switch op.Kind {
	case checker.KindAcquire:
		if ok {
			e.locks[op.Key] = op.Client
		}
	case checker.KindRelease:
		if gone && e.locks[op.Key] == op.Client {
			delete(e.locks, op.Key)
		}
	case checker.KindCampaign:
		if ok {
			e.leaders[op.Key] = op.Client
		}
	case checker.KindResign:
		if gone && e.leaders[op.Key] == op.Client {
			delete(e.leaders, op.Key)
		}
	case checker.KindCrash:
		for k, c := range e.locks {
			if c == op.Client {
				delete(e.locks, k)
			}
		}
		for k, c := range e.leaders {
			if c == op.Client {
				delete(e.leaders, k)
			}
		}
		delete(e.leases, op.Client)
	}
	if ok && op.Output.Lease != 0 {
		switch op.Kind {
		case checker.KindAcquire, checker.KindCampaign, checker.KindRegister, checker.KindRLock, checker.KindSession:
			e.leases[op.Client] = op.Output.Lease
			delete(e.noLease, op.Client) // the recipe offers one after all
		}
	}
}

// Process returns the cluster client a recorded client name stands for. A
// workload whose clients run several threads, sharing one etcd client as
// the goroutines of one process do, records thread j of client c1 as
// "c1/j" ('/' is never part of a client's name): faults aimed at a thread
// act on its process, and a Match naming the process matches its threads.
func Process(recorded string) string {
	if i := strings.IndexByte(recorded, '/'); i >= 0 {
		return recorded[:i]
	}
	return recorded
}

// LockHolder returns the client whose latest recorded acquire of lock
// succeeded and which has not released it (or crashed) since.
func (e *Env) LockHolder(lock string) (string, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	c, ok := e.locks[lock]
	return c, ok
}

// ElectionLeader returns the client whose latest recorded campaign in
// election succeeded and which has not resigned (or crashed) since.
func (e *Env) ElectionLeader(election string) (string, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	c, ok := e.leaders[election]
	return c, ok
}

// SessionLease returns the lease of the client's latest recorded acquire,
// campaign or registration that carried one (checker.Output.Lease).
func (e *Env) SessionLease(client string) (clientv3.LeaseID, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	l, ok := e.leases[client]
	return clientv3.LeaseID(l), ok
}

// Match selects recorded operations for a Trigger. Empty fields match
// anything, except Outcome: "" means ok, so a trigger on KindAcquire fires
// when a client has acquired the lock, not when it starts asking.
// Instant operations (a crash, a leader observed) are ok.
type Match struct {
	Kind    checker.Kind    `json:"kind,omitempty"`
	Client  string          `json:"client,omitempty"`
	Key     string          `json:"key,omitempty"`
	Outcome checker.Outcome `json:"outcome,omitempty"`
}

func (m Match) matches(op checker.Operation) bool {
	want := m.Outcome
	if want == "" {
		want = checker.OutcomeOK
	}
	return op.Outcome == want &&
		(m.Kind == "" || m.Kind == op.Kind) &&
		(m.Client == "" || m.Client == op.Client || m.Client == Process(op.Client)) &&
		(m.Key == "" || m.Key == op.Key)
}

// validate reports a kind or outcome no operation can have.
func (m Match) validate() error {
	if m.Kind != "" && !m.Kind.Known() {
		kinds := make([]string, 0, len(checker.Kinds()))
		for _, k := range checker.Kinds() {
			kinds = append(kinds, string(k))
		}
		return fmt.Errorf("no operation kind %q (kinds: %s, or a custom kind starting with \"x-\")", m.Kind, strings.Join(kinds, ", "))
	}
	valid := []checker.Outcome{checker.OutcomeOK, checker.OutcomeFailed, checker.OutcomeUnknown}
	if m.Outcome != "" && !slices.Contains(valid, m.Outcome) {
		return fmt.Errorf("no outcome %q (outcomes: %v; empty means ok)", m.Outcome, valid)
	}
	return nil
}

func (m Match) String() string {
	s := string(m.Kind)
	if s == "" {
		s = "any operation"
	}
	if m.Client != "" {
		s = m.Client + " " + s
	} else {
		s = "any client " + s
	}
	if m.Key != "" {
		s += " " + m.Key
	}
	if m.Outcome != "" && m.Outcome != checker.OutcomeOK {
		s += " " + string(m.Outcome)
	}
	return s
}

package cluster

// A frozen member is what SIGSTOP makes of an etcd process, as far as the
// harness reaches into one: it runs no code of its own and its sockets
// stay open. Freeze stops, in this order, the member's network (every byte
// to or from it waits where it is: holds.go), the client requests that
// reach its gRPC server (they wait before their handler: gate.go), its
// raft loop's ticker, and its lessor (made not primary, so its 500 ms pass
// finds no expired lease and nothing is renewed or checkpointed).
//
// Thaw resumes it in the order a resumed process shows (measured on
// v3.7.3 with a member in a process of its own, stopped with SIGSTOP;
// resume.go): the raft tick its ticker buffered during the stop — the
// raft loop handles it before anything that waits in its sockets, so a
// leader sends its late heartbeats and etcd counts the member active
// again (isActive: a tick within 3 heartbeats) — and the lessor's overdue
// pass, which hands the leases that expired during the stop to the
// server, somewhere among the steps of the resume: before the tick,
// before what waited on its links and in its gate, racing it, or after
// it. Only the race can lose a lease: a revocation proposed after raft
// stepped down for the new term is forwarded to the new leader, and a
// lease the client kept alive through another member is revoked (etcd
// issue #15247's symptom).
//
// What a freeze does not stop (on either clock) is every other timer of
// the member: rafthttp's link heartbeats and connection deadlines (5 s),
// the ReadIndex retry loop of a request already inside, the version,
// hash and corruption monitors, the compactor. They run on schedule
// during the freeze where a stopped process would run them late, at once,
// at the resume; their bytes wait with the rest.
//
// A member that runs as a member binary (Config.MemberBinaries) is
// frozen with SIGSTOP and thawed with SIGCONT instead (memberbinary.go):
// the real thing, every clock inside it stopped, its sockets left to the
// kernel. What the emulation above does not stop, that does.

import (
	"fmt"
	"time"
)

// freezeState is what Freeze set aside for Thaw.
type freezeState struct {
	at     time.Time
	clock  raftClock
	lessor lessorPrimacy
	saved  chan struct{} // the lessor's demotec at the freeze
	gate   *requestGate
	bin    *binServer // a member binary, stopped with SIGSTOP; nil otherwise
}

// Freeze stops the member as SIGSTOP stops a process (see the top of this
// file): its raft clock, lessor, client service and links stop; its
// connections stay open and the bytes sent to it are queued, not dropped.
// Thaw resumes it. A member that is down, or frozen already, is an error
// naming its state.
func (m *Member) Freeze() error {
	if err := m.c.checkOpen(); err != nil {
		return err
	}
	m.lifeMu.Lock()
	defer m.lifeMu.Unlock()
	m.mu.Lock()
	s, state, frozen := m.s, m.state, m.frozen
	m.mu.Unlock()
	switch {
	case state != stateRunning:
		return fmt.Errorf("%w: %s is %v; only a running member can be frozen", ErrNotRunning, m.name, state)
	case frozen != nil:
		return fmt.Errorf("%w: %s since %v; thaw it first", ErrFrozen, m.name, frozen.at.Format(time.StampMicro))
	}
	if b, ok := s.(*binServer); ok {
		return m.freezeBinary(b)
	}
	clock, err := raftClockOf(s.etcd())
	if err != nil {
		return err
	}
	lp, err := lessorPrimacyOf(s.etcd())
	if err != nil {
		return err
	}
	fs := &freezeState{at: time.Now(), clock: clock, lessor: lp, gate: s.requests()}
	// The network first, so nothing more comes in or goes out; then what
	// runs inside the member on its own clocks.
	m.c.net.holds.hold(m.name)
	fs.gate.hold()
	fs.clock.ticker.Stop()
	fs.saved = fs.lessor.setAside()
	m.mu.Lock()
	m.frozen = fs
	m.mu.Unlock()
	return nil
}

// Thaw resumes a frozen member (see the top of this file) and returns how
// long it was frozen on the cluster's clock. A member that is not frozen
// is an error.
func (m *Member) Thaw() (time.Duration, error) {
	if err := m.c.checkOpen(); err != nil {
		return 0, err
	}
	m.lifeMu.Lock()
	defer m.lifeMu.Unlock()
	m.mu.Lock()
	fs := m.frozen
	m.frozen = nil
	m.mu.Unlock()
	if fs == nil {
		return 0, fmt.Errorf("cluster: %s is not frozen", m.name)
	}
	if fs.bin != nil {
		return thawBinary(fs)
	}
	m.resume(fs, m.c.net.drawLessorPlace(fs.clock.heartbeat))
	return time.Since(fs.at), nil
}

// Frozen reports whether the member is frozen (Freeze without Thaw yet).
func (m *Member) Frozen() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.frozen != nil
}

// forgetFreeze ends a frozen member's hold for a halt: its connections
// were reset and its gate closed, so what waited fails.
func (m *Member) forgetFreeze() {
	m.mu.Lock()
	m.frozen = nil
	m.mu.Unlock()
	m.c.net.holds.release(m.name)
}

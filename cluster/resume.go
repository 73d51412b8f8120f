package cluster

import "time"

// How a frozen member's resume is staged on the virtual clock. A process
// resumed by SIGCONT finds every clock inside it overdue and every socket
// readable at once; the Go scheduler then runs what that readied in an
// order of its own. Measured on v3.7.3 with a member in a process of its
// own (docs/faults.md): the raft loop's buffered tick runs first (the
// runtime fires overdue timers in the order they were due, and the raft
// ticker, every heartbeat, is nearly always due before the lessor's
// 500 ms one), and the lessor's overdue pass lands anywhere from 0.1 to
// 4 ms later — before the member has read what waited on its links, while
// it reads it, or after it has handled the new term's message and
// demoted the lessor, when the pass finds nothing to revoke. Which one is
// the scheduler's race; it decides whether the lease is lost (etcd issue
// #15247): only a revocation handed to the server before the demotion
// and proposed after raft stepped down is forwarded to the new leader.
//
// On the virtual clock that work takes no time, so the pass and the
// released bytes either race at one instant or do not overlap at all.
// Thaw draws the pass's place from the run's seed (Config.Seed, a stream
// of its own), as the real scheduler's race would fall: before the raft tick
// with the chance that the lessor's timer was due first (heartbeat in
// 500 ms), otherwise one of the three places after it, each as likely.

// lessorPlace is where the lessor's overdue pass falls in a resume.
type lessorPlace int

const (
	// lessorBeforeTick: the pass runs before the buffered raft tick; the
	// member is not "active", so etcd asks for a read index before it
	// revokes, which the new term's message fails.
	lessorBeforeTick lessorPlace = iota
	// lessorBeforeBytes: the pass and the proposal it leads to run before
	// the member reads what waited; raft, still leader, appends the
	// revocation to its own log, which the new leader overwrites.
	lessorBeforeBytes
	// lessorWithBytes: the pass races the released bytes at one instant.
	lessorWithBytes
	// lessorAfterBytes: the member handles what waited first; the new
	// term demotes the lessor and the pass finds nothing.
	lessorAfterBytes
)

func (p lessorPlace) String() string {
	return [...]string{"before the raft tick", "before the held bytes", "with the held bytes", "after the held bytes"}[p]
}

// resumeStream separates the draws of resume orders from every other
// random choice drawn from a run's seed, so that the n-th thaw of a run
// draws the same place whatever the network drew before it.
const resumeStream = 0x726573756d65 // "resume"

// lessorInterval is the period of etcd's lessor loop (lease/lessor.go,
// runLoop's ticker).
const lessorInterval = 500 * time.Millisecond

// drawLessorPlace draws where the lessor's overdue pass falls in the
// resume of a member whose raft ticker beats every heartbeat.
func (n *network) drawLessorPlace(heartbeat time.Duration) lessorPlace {
	n.rngMu.Lock()
	defer n.rngMu.Unlock()
	if n.placed != nil {
		return *n.placed
	}
	if n.resume.Int64N(int64(lessorInterval)) < int64(heartbeat) {
		return lessorBeforeTick
	}
	return lessorBeforeBytes + lessorPlace(n.resume.IntN(3))
}

// resume runs a frozen member again, its lessor's pass at place.
func (m *Member) resume(fs *freezeState, place lessorPlace) {
	fs.clock.ticker.Reset(fs.clock.heartbeat)
	release := func() {
		m.c.net.holds.release(m.name)
		fs.gate.release()
	}
	pass := func() {
		fs.lessor.restore(fs.saved)
		fs.lessor.pass()
	}
	switch place {
	case lessorBeforeTick:
		pass()
		m.settle()
		fs.clock.tick()
		m.settle()
		release()
	case lessorBeforeBytes:
		fs.clock.tick()
		m.settle()
		pass()
		m.settle()
		release()
	case lessorWithBytes:
		fs.clock.tick()
		m.settle()
		fs.lessor.restore(fs.saved)
		release()
		fs.lessor.pass()
	case lessorAfterBytes:
		fs.clock.tick()
		m.settle()
		fs.lessor.restore(fs.saved)
		release()
		m.settle()
		fs.lessor.pass()
	}
}

// settle lets the member finish what the last step started before the
// next: on the virtual clock a sleep returns once every other goroutine
// of the bubble waits. On the real clock the steps follow at once.
func (m *Member) settle() {
	if m.c.net.mem != nil {
		time.Sleep(time.Nanosecond)
	}
}

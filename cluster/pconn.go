package cluster

import (
	"bytes"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// direction is one of the two byte streams of a proxied connection.
type direction int

const (
	// toMember carries bytes from the side that connected (a client or a
	// sending member) to the member behind the proxy.
	toMember direction = 0
	// fromMember carries the member's bytes back.
	fromMember direction = 1
)

// pconn is one proxied TCP connection: a (accepted) ↔ b (dialed to the
// member). Each direction is pumped by its own goroutine and governed by
// its own link, so a one-way fault cuts one stream and not the other.
type pconn struct {
	n      *network
	from   string // who connected: a client or a member; "" for the harness
	member string // the member behind the proxy

	a    net.Conn // what the pumps read and write on the accepted side (TLS for peers)
	aRaw net.Conn // the accepted TCP connection under a
	b    net.Conn // the connection to the member's real listener

	links   [2]*link // per direction; nil where the harness applies no faults
	tainted [2]atomic.Bool

	done chan struct{} // closed once, when the connection is closed
	once sync.Once
}

// chunkSize bounds one read from either side.
const chunkSize = 32 << 10

// pump copies one direction until either side fails or the connection is
// closed, applying the link's condition to every chunk.
func (c *pconn) pump(d direction) {
	src, dst := c.a, c.b
	if d == fromMember {
		src, dst = c.b, c.a
	}
	var q *delayQueue
	defer func() {
		if q != nil {
			q.finish() // deliver what is already due before closing
		}
		c.close(false)
	}()
	buf := make([]byte, chunkSize)
	for {
		n, err := src.Read(buf)
		if n > 0 && !c.deliver(d, buf[:n], dst, &q) {
			return
		}
		if err != nil {
			return
		}
	}
}

// deliver applies the link's condition to one chunk and reports whether the
// pump should go on.
func (c *pconn) deliver(d direction, p []byte, dst net.Conn, qp **delayQueue) bool {
	var cond Condition
	if l := c.links[d]; l != nil {
		l.mu.RLock()
		cond = l.cond
		if cond.Mode == Blackhole {
			// Marked while the link is held, so a heal cannot miss it.
			c.tainted[d].Store(true)
		}
		l.mu.RUnlock()
	}
	switch {
	case cond.Mode == Blackhole:
		return true
	case cond.Mode == Reject || c.tainted[d].Load():
		// A direction that lost bytes never delivers again. The heal
		// resets its connection, but only after it has put the link up
		// again: a chunk read in between would reach the member after the
		// gap (a raft stream would decode a message against state from one
		// it never saw).
		c.close(true)
		return false
	}
	q := *qp
	if cond.Delay == 0 && c.n.latency == 0 && (q == nil || q.idle()) {
		if !c.n.holds.wait(c) {
			return false
		}
		_, err := dst.Write(p)
		return err == nil
	}
	if q == nil {
		q = newDelayQueue(c, dst)
		*qp = q
	}
	return q.push(p, c.n.sampleDelay(cond))
}

// close closes both sides; reset makes the kernel send RST instead of FIN,
// as it does for the sockets of a process that dies.
func (c *pconn) close(reset bool) {
	c.once.Do(func() {
		close(c.done)
		if reset {
			setLinger0(c.aRaw)
			setLinger0(c.b)
		}
		// Close the raw sockets: a TLS close_notify could block on a
		// blackholed peer, and a reset wants no goodbye anyway.
		c.aRaw.Close()
		c.b.Close()
		c.n.unregister(c)
	})
}

func setLinger0(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
}

// delayQueue holds back the chunks of one direction until they are due and
// writes them in order from its own goroutine.
type delayQueue struct {
	c       *pconn
	dst     net.Conn
	ch      chan chunk
	pending atomic.Int64 // chunks pushed and not yet written
	last    time.Time    // due time of the newest chunk; only the pump touches it
	exited  chan struct{}
}

type chunk struct {
	b   []byte
	due time.Time
}

func newDelayQueue(c *pconn, dst net.Conn) *delayQueue {
	q := &delayQueue{c: c, dst: dst, ch: make(chan chunk, 256), exited: make(chan struct{})}
	c.n.wg.Go(q.run)
	return q
}

// idle reports whether every chunk pushed so far has been written, so a
// chunk written directly cannot overtake one still queued.
func (q *delayQueue) idle() bool { return q.pending.Load() == 0 }

func (q *delayQueue) push(p []byte, delay time.Duration) bool {
	due := time.Now().Add(delay)
	if due.Before(q.last) {
		due = q.last // never reorder bytes of one stream
	}
	q.last = due
	q.pending.Add(1)
	select {
	case q.ch <- chunk{b: bytes.Clone(p), due: due}:
		return true
	case <-q.c.done:
		return false
	}
}

// finish stops accepting chunks and waits until the queued ones are written
// or the connection is closed.
func (q *delayQueue) finish() {
	close(q.ch)
	<-q.exited
}

func (q *delayQueue) run() {
	defer close(q.exited)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for ch := range q.ch {
		if wait := time.Until(ch.due); wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-q.c.done:
				return
			}
		}
		if !q.c.n.holds.wait(q.c) {
			return
		}
		if _, err := q.dst.Write(ch.b); err != nil {
			q.c.close(false)
			return
		}
		q.pending.Add(-1)
	}
}

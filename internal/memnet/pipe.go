package memnet

import (
	"io"
	"net"
	"os"
	"sync"
	"time"
)

// pipe is one direction of an in-memory connection: a bounded buffer that
// one end writes and the other reads. Every wait is on a sync.Cond, which
// a synctest bubble counts as durably blocked, and deadlines are timers of
// the clock the pipe runs on.
//
// A deadline that has already passed takes effect at once, with no timer:
// in a synctest bubble a timer due at once runs its function on the spot,
// and with the race detector that crashes the runtime when the function
// starts a goroutine, as time.AfterFunc's does.
type pipe struct {
	mu   sync.Mutex // guards everything below
	cond sync.Cond  // broadcast on data, space, close and expiry
	buf  []byte
	max  int
	// spare is the array under buf, kept across drains while it is at
	// most spareMax, so a connection that carries one small message at a
	// time (a raft heartbeat, a unary call) allocates no buffer per
	// message; a bigger one is let go once drained.
	spare []byte

	writerClosed bool // the writing end closed: the reader reads what is left, then EOF
	readerClosed bool // the reading end closed: writes fail

	rdl, wdl deadline
}

// deadline is one end's deadline on a pipe.
type deadline struct {
	timer   *time.Timer
	expired bool
}

// spareMax is the largest array a drained pipe keeps for its next write.
const spareMax = 4 << 10

func newPipe(max int) *pipe {
	p := &pipe{max: max}
	p.cond.L = &p.mu
	return p
}

// set arms d for t; the pipe's lock is held.
func (p *pipe) set(d *deadline, t time.Time) {
	if d.timer != nil {
		d.timer.Stop()
		d.timer = nil
	}
	d.expired = false
	switch {
	case t.IsZero():
	case !t.After(time.Now()):
		d.expired = true
		p.cond.Broadcast()
	default:
		d.timer = time.AfterFunc(time.Until(t), func() {
			p.mu.Lock()
			d.expired = true
			p.cond.Broadcast()
			p.mu.Unlock()
		})
	}
}

func (p *pipe) read(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		switch {
		case p.readerClosed:
			return 0, net.ErrClosed
		case len(p.buf) > 0:
			n := copy(b, p.buf)
			p.buf = p.buf[n:]
			p.cond.Broadcast()
			return n, nil
		case p.writerClosed:
			return 0, io.EOF
		case p.rdl.expired:
			return 0, os.ErrDeadlineExceeded
		}
		p.cond.Wait()
	}
}

func (p *pipe) write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for n < len(b) {
		switch {
		case p.writerClosed:
			return n, net.ErrClosed
		case p.readerClosed:
			return n, io.ErrClosedPipe
		case p.wdl.expired:
			return n, os.ErrDeadlineExceeded
		case len(p.buf) < p.max:
			k := min(len(b)-n, p.max-len(p.buf))
			if len(p.buf) == 0 {
				p.buf = p.spare[:0] // a drained buffer starts again at its array's front
			}
			p.buf = append(p.buf, b[n:n+k]...)
			p.spare = nil
			if cap(p.buf) <= spareMax {
				p.spare = p.buf[:0]
			}
			n += k
			p.cond.Broadcast()
			continue
		}
		p.cond.Wait()
	}
	return n, nil
}

// closeWriter and closeReader end one side of the pipe for good.
func (p *pipe) closeWriter() { p.closeSide(&p.writerClosed) }
func (p *pipe) closeReader() { p.closeSide(&p.readerClosed) }

func (p *pipe) closeSide(flag *bool) {
	p.mu.Lock()
	*flag = true
	for _, d := range []*deadline{&p.rdl, &p.wdl} {
		if d.timer != nil {
			d.timer.Stop()
			d.timer = nil
		}
	}
	p.cond.Broadcast()
	p.mu.Unlock()
}

// Conn is one end of an in-memory connection: it reads one pipe and
// writes the other.
type Conn struct {
	in, out       *pipe
	local, remote Addr
	from          string // on the accepting end: the member that dialed, if one did
	once          sync.Once
}

// Pair returns the two ends of a new connection from dialer to listener,
// each direction buffering max bytes, on no network.
func Pair(dialer, listener Addr, max int) (client, server *Conn) {
	a, b := newPipe(max), newPipe(max)
	return &Conn{in: a, out: b, local: dialer, remote: listener},
		&Conn{in: b, out: a, local: listener, remote: dialer}
}

// From is, on the accepting end, the party that dialed with DialAs; ""
// otherwise.
func (c *Conn) From() string { return c.from }

func (c *Conn) Read(b []byte) (int, error)  { return c.in.read(b) }
func (c *Conn) Write(b []byte) (int, error) { return c.out.write(b) }

// Close ends both directions: the other end reads what was sent, then EOF,
// and its writes fail; this end's reads and writes fail at once.
func (c *Conn) Close() error {
	c.once.Do(func() {
		c.in.closeReader()
		c.out.closeWriter()
	})
	return nil
}

func (c *Conn) LocalAddr() net.Addr  { return c.local }
func (c *Conn) RemoteAddr() net.Addr { return c.remote }

func (c *Conn) SetDeadline(t time.Time) error {
	c.SetReadDeadline(t)
	return c.SetWriteDeadline(t)
}

func (c *Conn) SetReadDeadline(t time.Time) error {
	c.in.mu.Lock()
	c.in.set(&c.in.rdl, t)
	c.in.mu.Unlock()
	return nil
}

func (c *Conn) SetWriteDeadline(t time.Time) error {
	c.out.mu.Lock()
	c.out.set(&c.out.wdl, t)
	c.out.mu.Unlock()
	return nil
}

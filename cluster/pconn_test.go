package cluster

import (
	"errors"
	"io"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/internal/memnet"
)

// A direction that lost bytes to a blackhole delivers nothing after the
// heal, even a chunk its pump reads before the heal's reset reaches the
// connection: it resets the connection instead, so the member never reads
// bytes that follow a gap.
func TestTaintedDirectionNeverDeliversAgain(t *testing.T) {
	n := newNetwork(0, memnet.New(), 0)
	l := newLink(linkKey{from: "c1", to: "m0"})
	a, _ := memnet.Pair("127.0.0.1:1", "127.0.0.2:1", memnet.BufSize)
	b, member := memnet.Pair("127.0.0.3:1", "127.0.0.4:1", memnet.BufSize)
	defer member.Close()
	defer a.Close()
	// Not registered with the link: the heal below cannot reset it, as
	// when the pump reads its next chunk before the heal's reset lands.
	c := &pconn{n: n, from: "c1", member: "m0", a: a, aRaw: a, b: b, links: [2]*link{l, nil}, done: make(chan struct{})}

	l.setBase(Blackholed())
	if !c.deliver(toMember, []byte("lost"), b, new(*delayQueue)) {
		t.Fatal("a blackholed link ended the pump; want it to drop the chunk and go on")
	}
	l.setBase(Healthy)
	if c.deliver(toMember, []byte("after the gap"), b, new(*delayQueue)) {
		t.Error("a direction that lost a chunk went on delivering after the heal; want its connection reset")
	}

	member.SetReadDeadline(time.Now().Add(time.Second))
	buf := make([]byte, 64)
	got, err := member.Read(buf)
	if got > 0 || !errors.Is(err, io.EOF) {
		t.Errorf("the member read %q, %v; want nothing and io.EOF (the connection reset, nothing after the gap)", buf[:got], err)
	}
}

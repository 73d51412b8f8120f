package memnet

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// The in-memory connection behaves as a TCP one where the proxies and
// etcd look: bytes arrive in order across a small buffer, a close ends the
// other side's reads with EOF once it has read what was sent, deadlines
// time out, one already past at once, and a dial to nothing is refused.
func TestMemConn(t *testing.T) {
	n := New()
	ln, err := n.Listen("")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			t.Error(err)
		}
		accepted <- c
	}()
	a, err := n.Dial(context.Background(), ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	b := <-accepted
	want := make([]byte, 3*BufSize) // more than the buffer holds
	for i := range want {
		want[i] = byte(i)
	}
	go func() {
		if _, err := a.Write(want); err != nil {
			t.Error(err)
		}
		a.Close()
	}()
	got, err := io.ReadAll(b)
	if err != nil || len(got) != len(want) || string(got) != string(want) {
		t.Fatalf("read %d bytes (err %v); want the %d written, in order, then EOF", len(got), err, len(want))
	}
	if _, err := b.Write([]byte("x")); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("write to a closed peer = %v; want io.ErrClosedPipe", err)
	}
	if _, err := a.Read(make([]byte, 1)); !errors.Is(err, net.ErrClosed) {
		t.Errorf("read after Close = %v; want net.ErrClosed", err)
	}

	go ln.Accept() //nolint:errcheck // the server end is not used
	c, err := n.Dial(context.Background(), ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("read past its deadline = %v; want os.ErrDeadlineExceeded", err)
	}
	c.SetReadDeadline(time.Unix(1, 0))
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("read with a deadline in the past = %v; want os.ErrDeadlineExceeded at once", err)
	}
	c.Close()

	if _, err := n.Dial(context.Background(), "127.0.0.9:1"); err == nil {
		t.Error("a dial to an address nobody listens at succeeded")
	}
}

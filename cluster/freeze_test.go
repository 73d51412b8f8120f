package cluster

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/internal/bubble"
)

// A frozen leader is not partitioned: it keeps believing it leads for the
// whole freeze, its clients' connections stay open and their requests
// wait instead of failing, and what they sent is served after the thaw.
func TestFreezeLeaderQueuesAndResumes(t *testing.T) {
	bubble.Test(t, bubble.Options{Name: t.Name()}, func(t *testing.T) {
		c := New(t, Config{Clock: ClockVirtual, Latency: time.Millisecond})
		ctx := testCtx(t)
		old := leader(t, c)
		pinned := client(t, c, "pinned", old.Name())
		put(t, pinned, "k", "before")

		if err := old.Freeze(); err != nil {
			t.Fatal(err)
		}
		if !old.Frozen() {
			t.Fatal("Frozen() is false after Freeze")
		}
		// Queued, not refused: a short request times out rather than
		// failing fast with a reset or refused connection.
		short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		_, err := pinned.Put(short, "k", "lost")
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("a put through the frozen member: %v, want context.DeadlineExceeded", err)
		}
		// A longer request sent now is answered after the thaw.
		done := make(chan error, 1)
		go func() {
			rctx, cancel := context.WithTimeout(ctx, 20*time.Second)
			defer cancel()
			_, err := pinned.Get(rctx, "k")
			done <- err
		}()
		var next *Member
		eventually(t, "the others elect a new leader", func() bool {
			next = c.agreedLeader()
			return next != nil && next != old
		})
		time.Sleep(2 * time.Second) // well past the election timeout and CheckQuorum
		if !old.IsLeader() {
			t.Error("the frozen leader stepped down during the freeze; only a thaw can tell it of the new term")
		}
		select {
		case err := <-done:
			t.Fatalf("a get through the frozen member returned during the freeze: %v", err)
		default:
		}
		d, err := old.Thaw()
		if err != nil {
			t.Fatal(err)
		}
		if d < 2*time.Second {
			t.Errorf("Thaw says the freeze lasted %v, want at least 2s", d)
		}
		if err := <-done; err != nil {
			t.Errorf("the get queued during the freeze: %v, want it served after the thaw", err)
		}
		eventually(t, "the thawed old leader steps down", func() bool { return !old.IsLeader() })
		if err := c.WaitHealthy(ctx); err != nil {
			t.Fatal(err)
		}
		put(t, pinned, "k", "after")
	})
}

func TestFreezeRefusals(t *testing.T) {
	bubble.Test(t, bubble.Options{Name: t.Name()}, func(t *testing.T) {
		c := New(t, Config{Clock: ClockVirtual})
		m := c.Members()[1]
		if _, err := m.Thaw(); err == nil {
			t.Error("Thaw of a member that is not frozen: no error")
		}
		if err := m.Freeze(); err != nil {
			t.Fatal(err)
		}
		if err := m.Freeze(); !errors.Is(err, ErrFrozen) {
			t.Errorf("Freeze of a frozen member: %v, want ErrFrozen", err)
		}
		if err := m.Stop(); !errors.Is(err, ErrFrozen) {
			t.Errorf("Stop of a frozen member: %v, want ErrFrozen", err)
		}
		// A frozen member can be killed, as a stopped process can; it is
		// not frozen any more, and Freeze of a killed member is refused.
		if err := m.Kill(); err != nil {
			t.Fatal(err)
		}
		if m.Frozen() {
			t.Error("a killed member is still frozen")
		}
		if err := m.Freeze(); !errors.Is(err, ErrNotRunning) {
			t.Errorf("Freeze of a killed member: %v, want ErrNotRunning", err)
		}
		if err := m.Restart(testCtx(t)); err != nil {
			t.Fatal(err)
		}
		if err := c.WaitHealthy(testCtx(t)); err != nil {
			t.Fatal(err)
		}
	})
}

// Close of a cluster with a member frozen — a test that failed before its
// heal — ends it like any other: nothing waits for a thaw.
func TestCloseWithAFrozenMember(t *testing.T) {
	bubble.Test(t, bubble.Options{Name: t.Name()}, func(t *testing.T) {
		c, err := Start(testCtx(t), Config{Clock: ClockVirtual})
		if err != nil {
			t.Fatal(err)
		}
		lead := leader(t, c)
		cli := client(t, c, "c1", lead.Name())
		if err := lead.Freeze(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := cli.Put(context.Background(), "k", "v") // waits in the frozen member
			done <- err
		}()
		time.Sleep(time.Second)
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err == nil {
			t.Error("a put into a frozen member that was closed succeeded")
		}
	})
}

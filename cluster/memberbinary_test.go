package cluster

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Member binaries run on the wall clock by nature: a binary cannot join
// a synctest bubble, and SIGSTOP stops real time's clocks only. These
// tests are therefore on the real clock, with generous deadlines.

func binaryCluster(t *testing.T, cfg Config) *Cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the member binary and starts member binaries")
	}
	cfg.Clock, cfg.MemberBinaries = ClockReal, true
	return New(t, cfg)
}

func TestMemberBinariesServeKillRestart(t *testing.T) {
	c := binaryCluster(t, Config{})
	ctx := testCtx(t)
	cli := client(t, c, "c1")
	put(t, cli, "k", "v1")
	lead := leader(t, c)
	if lead.Etcd() != nil || lead.Server() != nil {
		t.Errorf("a member binary has an in-process server: Etcd %v, Server %v; want nil", lead.Etcd(), lead.Server())
	}
	pid := lead.running().(*binServer).b.Pid()
	if err := lead.Kill(); err != nil {
		t.Fatal(err)
	}
	if processAlive(pid) {
		t.Errorf("the killed member %s's binary %d is still there", lead.Name(), pid)
	}
	newLeader(t, c, lead)
	put(t, cli, "k", "v2")
	if err := lead.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if got := get(t, client(t, c, "obs", lead.Name()), "k"); got != "v2" {
		t.Errorf("the restarted member reads k=%q; want v2", got)
	}
	if err := c.MoveLeader(ctx, lead.Name()); err != nil {
		t.Fatal(err)
	}
	f := followers(c, lead)[0]
	if err := f.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := f.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitHealthy(ctx); err != nil {
		t.Fatal(err)
	}
}

// A frozen leader binary is stopped whole: it does not step down while
// the others elect a new leader, and still believes it leads when it
// resumes, until the first message of the new term reaches it.
func TestMemberBinaryFreeze(t *testing.T) {
	c := binaryCluster(t, Config{})
	ctx := testCtx(t)
	lead := leader(t, c)
	cli := client(t, c, "c1", followers(c, lead)[0].Name())
	if err := lead.Freeze(); err != nil {
		t.Fatal(err)
	}
	if err := lead.Freeze(); !errors.Is(err, ErrFrozen) {
		t.Errorf("a second Freeze = %v; want ErrFrozen", err)
	}
	if err := lead.Stop(); !errors.Is(err, ErrFrozen) {
		t.Errorf("Stop of a frozen member = %v; want ErrFrozen", err)
	}
	newLeader(t, c, lead)
	put(t, cli, "k", "while frozen")
	if !lead.IsLeader() {
		t.Errorf("the frozen old leader %s does not believe it leads; a stopped binary cannot have learnt otherwise", lead.Name())
	}
	d, err := lead.Thaw()
	if err != nil {
		t.Fatal(err)
	}
	if d <= 0 {
		t.Errorf("Thaw says the member was frozen %v", d)
	}
	eventually(t, "the old leader steps down", func() bool { return !lead.IsLeader() })
	if err := c.WaitHealthy(ctx); err != nil {
		t.Fatal(err)
	}
	if got := get(t, client(t, c, "obs", lead.Name()), "k"); got != "while frozen" {
		t.Errorf("the thawed member reads k=%q; want the write made while it was frozen", got)
	}
}

// A frozen member binary that is killed dies (SIGKILL reaches a stopped
// process) and restarts.
func TestMemberBinaryKillFrozen(t *testing.T) {
	c := binaryCluster(t, Config{})
	ctx := testCtx(t)
	f := followers(c, leader(t, c))[0]
	if err := f.Freeze(); err != nil {
		t.Fatal(err)
	}
	if err := f.Kill(); err != nil {
		t.Fatal(err)
	}
	if f.Frozen() {
		t.Error("a killed member is still frozen")
	}
	if err := f.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitHealthy(ctx); err != nil {
		t.Fatal(err)
	}
}

// A member binary that cannot start is named, with its last log lines.
func TestMemberBinaryExitsEarly(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the member binary")
	}
	dir := t.TempDir()
	// A file where m0's data directory must go: etcd cannot create it.
	if err := os.WriteFile(filepath.Join(dir, "m0"), []byte("in the way"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Start(context.Background(), Config{Members: 1, Clock: ClockReal, MemberBinaries: true, DataDir: dir})
	if err == nil {
		c.Close()
		t.Fatal("a member whose data directory is a file started")
	}
	t.Logf("the error: %v", err)
	for _, want := range []string{"member m0", "ended", "last lines of m0's log", "m0"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q:\n%v", want, err)
		}
	}
}

// A member binary that dies on its own is noticed and named: the harness
// sees it gone, and a restart brings it back.
func TestMemberBinaryDiesOnItsOwn(t *testing.T) {
	c := binaryCluster(t, Config{})
	ctx := testCtx(t)
	f := followers(c, leader(t, c))[0]
	p := f.running().(*binServer)
	if err := syscall.Kill(p.b.Pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-p.errc():
		if !strings.Contains(err.Error(), "member "+f.Name()) || !strings.Contains(err.Error(), "ended on its own") {
			t.Errorf("the death is reported as %q; want it to name %s and say it ended on its own", err, f.Name())
		}
	case <-ctx.Done():
		t.Fatal("the death of a member binary was not reported")
	}
	eventually(t, f.Name()+" is down", func() bool { return !f.Running() })
	if !strings.Contains(f.log.tail(5), "ended on its own") {
		t.Errorf("%s's log does not say its binary ended:\n%s", f.Name(), f.log.tail(5))
	}
	if err := f.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitHealthy(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestMemberBinariesNeedTheRealClock(t *testing.T) {
	_, err := Start(context.Background(), Config{Clock: ClockVirtual, MemberBinaries: true})
	if err == nil || !strings.Contains(err.Error(), "MemberBinaries") || !strings.Contains(err.Error(), `"real"`) {
		t.Errorf("Start on the virtual clock with MemberBinaries = %v; want an error naming the field and the real clock", err)
	}
}

// newLeader waits until a quorum agrees on a leader other than old.
func newLeader(t *testing.T, c *Cluster, old *Member) {
	t.Helper()
	ctx := testCtx(t)
	eventually(t, "a leader other than "+old.Name(), func() bool {
		lctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		m, err := c.Leader(lctx)
		return err == nil && m != old
	})
}

// processAlive reports whether a process with this ID exists.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

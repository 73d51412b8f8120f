package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.etcd.io/etcd/server/v3/etcdserver"

	"github.com/etcdsim/etcdsim/internal/memberbin"
)

// A member binary (Config.MemberBinaries) is a member's etcd run as an
// operating-system program of its own by package memberbin. This file is
// how the cluster starts, freezes and hears one; server.go how a member is
// asked whichever way its etcd runs.

// binServer is a member's etcd in a member binary, as the cluster sees
// it: through its sockets, its reports, and a gate that holds nothing
// back but knows the open streams the binary reports.
type binServer struct {
	b    *memberbin.Server
	gate *requestGate
}

func (s *binServer) etcd() *etcdserver.EtcdServer { return nil }
func (s *binServer) embedded() *embed.Etcd        { return nil }
func (s *binServer) requests() *requestGate       { return s.gate }
func (s *binServer) errc() <-chan error           { return s.b.Err() }
func (s *binServer) peerAddr() string             { return s.b.PeerAddr() }
func (s *binServer) clientAddr() string           { return s.b.ClientAddr() }
func (s *binServer) halt()                        { s.b.Halt() }

// startBinaryMember starts the member's etcd in a member binary.
func (m *Member) startBinaryMember(clusterState string) (server, error) {
	path, err := memberbin.Binary(context.Background()) // built by Start already, unless removed since
	if err != nil {
		return nil, err
	}
	s := &binServer{gate: &requestGate{}}
	s.b, err = memberbin.Start(context.Background(), memberbin.Options{
		Binary:    path,
		Config:    m.embedConfig(clusterState, m.c.initialCluster()),
		Log:       m.log,
		OnExit:    func(why error) { m.binaryEnded(s, why) },
		OnStreams: s.gate.setStreams,
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// binaryEnded is told that the member binary of s ended on its own — a
// fatal error, a panic, a kill from outside. If s is still the member's
// running server, the member is down from now on, as after Kill: its
// connections are reset and Restart brings it back. Why is in its log.
func (m *Member) binaryEnded(s *binServer, why error) {
	fmt.Fprintf(m.log, "etcdsim: %v\n", why)
	m.mu.Lock()
	mine := m.s == server(s) && m.state == stateRunning
	if mine {
		m.state = stateKilled
	}
	m.mu.Unlock()
	if mine {
		m.c.net.setDown(m.name, true)
		m.forgetFreeze()
	}
}

// freezeBinary stops a member binary with SIGSTOP: the kernel keeps its
// sockets open and queues what is sent to it, and every clock inside it
// stops with it.
func (m *Member) freezeBinary(s *binServer) error {
	if err := binSignalErr(s.b.Pause()); err != nil {
		return err
	}
	m.mu.Lock()
	m.frozen = &freezeState{at: time.Now(), bin: s}
	m.mu.Unlock()
	return nil
}

// thawBinary resumes a member binary stopped by freezeBinary.
func thawBinary(fs *freezeState) (time.Duration, error) {
	if err := binSignalErr(fs.bin.b.Resume()); err != nil {
		return 0, err
	}
	return time.Since(fs.at), nil
}

// binSignalErr is the cluster's error for a signal to a member binary
// that failed: one that has ended is not running.
func binSignalErr(err error) error {
	if errors.Is(err, memberbin.ErrExited) {
		return fmt.Errorf("%w: %v", ErrNotRunning, err)
	}
	return err
}

// setStreams replaces the open streams with those a member binary
// reported.
func (g *requestGate) setStreams(streams []memberbin.Stream) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.streams = make(map[streamKey]int, len(streams))
	for _, s := range streams {
		g.streams[streamKey{s.Addr, s.Method}] = 1
	}
}

// checkMemberBinaries says why cfg cannot run member binaries.
func checkMemberBinaries(cfg Config) error {
	if cfg.MemberBinaries && cfg.Clock != ClockReal {
		return fmt.Errorf("cluster: Config.MemberBinaries runs members as binaries of their own on the wall clock, but Config.Clock is %v; set Clock to %q (a binary cannot join a synctest bubble)", cfg.Clock, ClockReal)
	}
	return nil
}

// tempDirPrefix is the prefix of the temp dir Start makes for cfg. Each
// carries this process's ID, so that what a process killed before it could
// close its clusters left is swept (TempPrefixes): a cluster of member
// binaries by memberbin, one in this process by whoever sweeps next.
func tempDirPrefix(cfg Config) string {
	if cfg.MemberBinaries {
		return memberbin.DataDirPrefix()
	}
	return inProcessDirPrefix + strconv.Itoa(os.Getpid()) + "-"
}

// inProcessDirPrefix names the temp dirs of clusters whose members run in
// this process; the process's ID follows it.
const inProcessDirPrefix = "etcdsim-cluster-"

// TempPrefixes are the prefixes of every temp dir a process's clusters
// make and remove on Close — their data, and the member binary built for
// them — each followed by the process's ID and a dash (package
// internal/piddir's form). A process killed before it could close them
// leaves them; a tool that starts often, as simrun does, sweeps those of
// processes that are gone.
func TempPrefixes() []string {
	return append([]string{inProcessDirPrefix}, memberbin.TempPrefixes()...)
}

// MemberBinaryEnv names the environment variable that gives a built member
// binary's path, which this process then uses instead of building its
// own: a parent that starts many processes with clusters (simrun's runs)
// builds it once (MemberBinary) and hands it down.
const MemberBinaryEnv = memberbin.BinaryEnv

// MemberBinary returns the path of the member binary that clusters with
// Config.MemberBinaries run: $ETCDSIM_MEMBER_BINARY if set, or the one
// this process built, which it builds first (go build, from this module's
// source) if it has not yet. RemoveMemberBinary removes what it built.
func MemberBinary(ctx context.Context) (string, error) { return memberbin.Binary(ctx) }

// RemoveMemberBinary removes the member binary this process built for
// clusters with Config.MemberBinaries, if it built one; a later such
// cluster builds it again. Call it when the last of them has closed — at
// the end of TestMain, say. It is safe to call at any time: running
// members keep the binary they started from.
func RemoveMemberBinary() error { return memberbin.RemoveBinary() }

package cluster

import (
	"context"
	"fmt"
	"time"

	"github.com/etcdsim/etcdsim/internal/memberproc"
)

// What a member is asked, whichever way its etcd runs: in this process
// (embed, or the virtual clock's server), where etcd itself answers, or in
// a process of its own (procServer), which answers from its reports.

// serverID is the member's raft ID.
func serverID(s server) uint64 {
	if p, ok := s.(*procServer); ok {
		id, _, _ := p.view()
		return id
	}
	return uint64(s.etcd().MemberID())
}

// serverView is the leader the member believes in (0 for none) and the
// term of its last applied entry.
func serverView(s server) (leader, term uint64) {
	if p, ok := s.(*procServer); ok {
		_, leader, term = p.view()
		return leader, term
	}
	return uint64(s.etcd().Leader()), s.etcd().Term()
}

// serverReady is closed once the member has joined and serves; serverDone
// once it has stopped.
func serverReady(s server) <-chan struct{} {
	if p, ok := s.(*procServer); ok {
		return p.ready
	}
	return s.etcd().ReadyNotify()
}

func serverDone(s server) <-chan struct{} {
	if p, ok := s.(*procServer); ok {
		return p.exited
	}
	return s.etcd().StopNotify()
}

// stopServer shuts the member down gracefully: a leader hands leadership
// over first.
func stopServer(s server) {
	if p, ok := s.(*procServer); ok {
		p.stop()
		return
	}
	s.etcd().Stop()
}

// transferLeadership asks m, the leader, to hand leadership to the member
// with ID to. A member process is asked through its client API, as etcdctl
// move-leader asks.
func (m *Member) transferLeadership(ctx context.Context, s server, to uint64) error {
	if _, ok := s.(*procServer); ok {
		cli, err := m.c.harnessClient(m)
		if err != nil {
			return err
		}
		_, err = cli.MoveLeader(ctx, to)
		return err
	}
	return s.etcd().MoveLeader(ctx, m.ID(), to)
}

// startProcessMember starts the member's etcd in a process of its own.
func (m *Member) startProcessMember(clusterState string) (server, error) {
	prog, err := memberProgram(context.Background()) // built by Start already, unless removed since
	if err != nil {
		return nil, err
	}
	cfg := m.embedConfig(clusterState, m.c.initialCluster())
	return startProcess(context.Background(), prog, cfg, m.log, m.processEnded)
}

// processEnded is told that the member's process p ended on its own — a
// fatal error, a panic, a kill from outside. If p is still the member's
// running server, the member is down from now on, as after Kill: its
// connections are reset and Restart brings it back. Why is in its log.
func (m *Member) processEnded(p *procServer, why error) {
	fmt.Fprintf(m.log, "etcdsim: %v\n", why)
	m.mu.Lock()
	mine := m.s == server(p) && m.state == stateRunning
	if mine {
		m.state = stateKilled
	}
	m.mu.Unlock()
	if mine {
		m.c.net.setDown(m.name, true)
		m.forgetFreeze()
	}
}

// freezeProcess stops a member process with SIGSTOP: the kernel keeps its
// sockets open and queues what is sent to it, and every clock inside it
// stops with it.
func (m *Member) freezeProcess(p *procServer) error {
	if err := p.pause(); err != nil {
		return err
	}
	m.mu.Lock()
	m.frozen = &freezeState{at: time.Now(), proc: p}
	m.mu.Unlock()
	return nil
}

// thawProcess resumes a member process stopped by freezeProcess.
func thawProcess(fs *freezeState) (time.Duration, error) {
	if err := fs.proc.resume(); err != nil {
		return 0, err
	}
	return time.Since(fs.at), nil
}

// setStreams replaces the open streams with those a member process
// reported.
func (g *requestGate) setStreams(streams []memberproc.Stream) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.streams = make(map[streamKey]int, len(streams))
	for _, s := range streams {
		g.streams[streamKey{s.Addr, s.Method}] = 1
	}
}

// checkMemberProcesses says why cfg cannot run members as processes.
func checkMemberProcesses(cfg Config) error {
	if cfg.MemberProcesses && cfg.Clock != ClockReal {
		return fmt.Errorf("cluster: Config.MemberProcesses runs members as processes on the wall clock, but Config.Clock is %v; set Clock to %q (a process cannot join a synctest bubble)", cfg.Clock, ClockReal)
	}
	return nil
}

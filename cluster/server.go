package cluster

import (
	"context"

	"go.etcd.io/etcd/server/v3/embed"
	"go.etcd.io/etcd/server/v3/etcdserver"
)

// server is one run of a member's etcd: from a start to a kill or stop. On
// the real clock it is an embedded etcd (embed.Etcd); on the virtual clock,
// an etcdserver.EtcdServer with its gRPC and peer servers on the in-memory
// network (vserver.go).
type server interface {
	// etcd is the etcd server itself.
	etcd() *etcdserver.EtcdServer
	// peerAddr and clientAddr are the addresses of its own peer and client
	// listeners, which the member's proxies forward to.
	peerAddr() string
	clientAddr() string
	// errc reports a listener that failed while serving.
	errc() <-chan error
	// halt ends it at once, raft and all, without handing leadership over,
	// and closes what it listens on; the member's connections were reset
	// before.
	halt()
	// embedded is the embed.Etcd on the real clock, nil on the virtual.
	embedded() *embed.Etcd
	// requests is the gate in front of its gRPC handlers.
	requests() *requestGate
}

// embedServer is a member's etcd on the real clock.
type embedServer struct {
	e    *embed.Etcd
	gate *requestGate
}

func (s embedServer) etcd() *etcdserver.EtcdServer { return s.e.Server }
func (s embedServer) peerAddr() string             { return s.e.Peers[0].Listener.Addr().String() }
func (s embedServer) clientAddr() string           { return s.e.Clients[0].Addr().String() }
func (s embedServer) errc() <-chan error           { return s.e.Err() }
func (s embedServer) embedded() *embed.Etcd        { return s.e }
func (s embedServer) requests() *requestGate       { return s.gate }

func (s embedServer) halt() {
	s.gate.close()
	// HardStop before Close: Close would otherwise try a leadership
	// transfer and wait for client streams.
	s.e.Server.HardStop()
	s.e.Close()
}

// startEmbed calls embed.StartEtcd, turning a fatal log (which panics with
// our logger) into an error.
func startEmbed(cfg *embed.Config, gate *requestGate) (_ server, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmtPanic(r)
		}
	}()
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, err
	}
	return embedServer{e, gate}, nil
}

// What a member is asked, whichever way its etcd runs: in this process
// (embed, or the virtual clock's server), where etcd itself answers, or in
// a member binary (memberbinary.go), which answers from its reports.

// serverID is the member's raft ID.
func serverID(s server) uint64 {
	if b, ok := s.(*binServer); ok {
		id, _, _ := b.b.View()
		return id
	}
	return uint64(s.etcd().MemberID())
}

// serverView is the leader the member believes in (0 for none) and the
// term of its last applied entry.
func serverView(s server) (leader, term uint64) {
	if b, ok := s.(*binServer); ok {
		_, leader, term = b.b.View()
		return leader, term
	}
	return uint64(s.etcd().Leader()), s.etcd().Term()
}

// serverReady is closed once the member has joined and serves; serverDone
// once it has stopped.
func serverReady(s server) <-chan struct{} {
	if b, ok := s.(*binServer); ok {
		return b.b.Ready()
	}
	return s.etcd().ReadyNotify()
}

func serverDone(s server) <-chan struct{} {
	if b, ok := s.(*binServer); ok {
		return b.b.Exited()
	}
	return s.etcd().StopNotify()
}

// stopServer shuts the member down gracefully: a leader hands leadership
// over first.
func stopServer(s server) {
	if b, ok := s.(*binServer); ok {
		b.b.Stop()
		return
	}
	s.etcd().Stop()
}

// transferLeadership asks m, the leader, to hand leadership to the member
// with ID to. A member binary is asked through its client API, as etcdctl
// move-leader asks.
func (m *Member) transferLeadership(ctx context.Context, s server, to uint64) error {
	if _, ok := s.(*binServer); ok {
		cli, err := m.c.harnessClient(m)
		if err != nil {
			return err
		}
		_, err = cli.MoveLeader(ctx, to)
		return err
	}
	return s.etcd().MoveLeader(ctx, m.ID(), to)
}

package cluster

import (
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

package cluster

// This file holds every piece of etcdsim that reaches into etcd's
// unexported state, for the virtual clock, and nothing else. Each is
// checked against the etcd version go.mod requires by
// TestEtcdInternalsMatchGoMod; on an etcd whose internals differ, a
// virtual cluster fails to start with an error that names what is missing
// and suggests the real clock, never a panic.

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"reflect"
	"unsafe"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/etcdserver"
	"go.etcd.io/etcd/server/v3/etcdserver/api/rafthttp"
)

// valCtxCh is clientv3's package-level channel that never closes
// (client/v3/watch.go): every Watch wraps its context in a valCtx whose Done
// is this channel, and context.WithCancel on it starts a goroutine that
// waits on it. The channel was made at package init, outside any bubble, so
// that goroutine is never durably blocked and a bubble's clock would stop
// for as long as any watch runs — every Mutex.Lock and Election.Campaign
// watches. A nil Done means the same "never cancelled" and starts no
// goroutine (context.propagateCancel returns early), so init sets it to nil
// for every cluster, on either clock: it changes nothing but that
// goroutine. Should the variable disappear from clientv3, this line fails
// to link, naming it.
//
//go:linkname valCtxCh go.etcd.io/etcd/client/v3.valCtxCh
var valCtxCh chan struct{}

func init() {
	valCtxCh = nil
	_ = clientv3.WithRequireLeader // the variable lives in clientv3: keep the import
}

// errInternals prefixes the errors that say etcd's internals are not what
// the virtual clock needs.
const errInternals = "cluster: the virtual clock needs etcd internals that this etcd build does not have (%s); etcdsim was built against the etcd version in its go.mod: use the real clock (Config.Clock: ClockReal, simrun -clock real)"

// field returns the field called name of the struct v points to, settable
// even when unexported, or an error naming the field.
func field(v reflect.Value, typ, name string) (reflect.Value, error) {
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}, fmt.Errorf(errInternals, typ+" is not a struct")
	}
	f := v.Elem().FieldByName(name)
	if !f.IsValid() {
		return reflect.Value{}, fmt.Errorf(errInternals, typ+" has no field "+name)
	}
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem(), nil
}

// usePeerDialer makes a server that NewServer made, and that has not
// started, dial its peers on the in-memory network.
//
// NewServer builds three HTTP round trippers that dial peers over TCP: the
// raft transport's stream and pipeline round trippers, and the server's
// peerRt (lease renewals and TimeToLive forwarded to the leader, version
// and downgrade probes). Their transport has already started stream readers
// that dial — patching its round trippers in place would race with them —
// so the transport is replaced: a new one made of the old one's exported
// configuration, started (which makes its round trippers and no
// goroutine), pointed at the in-memory network, given every peer, and put
// where the server reads it once it starts. The old one is stopped. peerRt
// is used only by what Start launches, so it is pointed at the network in
// place.
func usePeerDialer(s *etcdserver.EtcdServer, dial func(context.Context, string) (net.Conn, error)) error {
	slot, err := transportSlot(s)
	if err != nil {
		return err
	}
	old, ok := slot.Interface().(*rafthttp.Transport)
	if !ok {
		return fmt.Errorf(errInternals, fmt.Sprintf("the raft transport is a %T, not a *rafthttp.Transport", slot.Interface()))
	}
	peerRt, err := field(reflect.ValueOf(s), "etcdserver.EtcdServer", "peerRt")
	if err != nil {
		return err
	}
	nt := &rafthttp.Transport{
		Logger: old.Logger, TLSInfo: old.TLSInfo, DialTimeout: old.DialTimeout,
		DialRetryFrequency: old.DialRetryFrequency, ID: old.ID, URLs: old.URLs,
		ClusterID: old.ClusterID, Raft: old.Raft, Snapshotter: old.Snapshotter,
		ServerStats: old.ServerStats, LeaderStats: old.LeaderStats, ErrorC: old.ErrorC,
	}
	if err := nt.Start(); err != nil {
		return fmt.Errorf("cluster: a raft transport for the in-memory network: %w", err)
	}
	rts := []reflect.Value{peerRt}
	for _, name := range []string{"streamRt", "pipelineRt"} {
		rt, err := field(reflect.ValueOf(nt), "rafthttp.Transport", name)
		if err != nil {
			nt.Stop()
			return err
		}
		rts = append(rts, rt)
	}
	for _, rt := range rts {
		ht, ok := rt.Interface().(*http.Transport)
		if !ok {
			nt.Stop()
			return fmt.Errorf(errInternals, fmt.Sprintf("a peer round tripper is a %T, not an *http.Transport", rt.Interface()))
		}
		ht.Proxy = nil
		ht.DialContext = func(ctx context.Context, _, addr string) (net.Conn, error) { return dial(ctx, addr) }
		// A joining member's bootstrap left real connections idle here
		// (joinBridge); from now on the round tripper dials in memory.
		ht.CloseIdleConnections()
	}
	old.Stop()
	for _, m := range s.Cluster().Members() {
		if m.ID != s.MemberID() {
			nt.AddPeer(m.ID, m.PeerURLs)
		}
	}
	slot.Set(reflect.ValueOf(rafthttp.Transporter(nt)))
	return nil
}

// transportSlot is EtcdServer.r.transport, where NewServer stores the raft
// transport and the raft loop reads it.
func transportSlot(s *etcdserver.EtcdServer) (reflect.Value, error) {
	r, err := field(reflect.ValueOf(s), "etcdserver.EtcdServer", "r")
	if err != nil {
		return reflect.Value{}, err
	}
	return field(r.Addr(), "etcdserver.raftNode", "transport")
}

// checkInternals reports whether this etcd build has every piece
// usePeerDialer reaches for, without a server.
func checkInternals() error {
	var s etcdserver.EtcdServer
	if _, err := transportSlot(&s); err != nil {
		return err
	}
	if _, err := field(reflect.ValueOf(&s), "etcdserver.EtcdServer", "peerRt"); err != nil {
		return err
	}
	var t rafthttp.Transport
	for _, name := range []string{"streamRt", "pipelineRt"} {
		if _, err := field(reflect.ValueOf(&t), "rafthttp.Transport", name); err != nil {
			return err
		}
	}
	return nil
}

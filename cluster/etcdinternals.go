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
	"sync"
	"time"
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
	return checkFreezeInternals(&s)
}

// raftClock is what Member.Freeze stops and Thaw restarts of a server's
// raft loop: EtcdServer.r's ticker and heartbeat, and what the loop does
// on each tick (raftNode.tick: raft's Tick, then latestTickTs = now under
// tickMu, which EtcdServer.isActive reads).
type raftClock struct {
	ticker    *time.Ticker
	heartbeat time.Duration
	node      interface{ Tick() } // the raft.Node
	tickMu    *sync.RWMutex
	lastTick  reflect.Value // raftNode.latestTickTs, settable
}

func raftClockOf(s *etcdserver.EtcdServer) (raftClock, error) {
	r, err := field(reflect.ValueOf(s), "etcdserver.EtcdServer", "r")
	if err != nil {
		return raftClock{}, err
	}
	var rc raftClock
	vals := map[string]reflect.Value{}
	for _, name := range []string{"ticker", "heartbeat", "Node", "tickMu", "latestTickTs"} {
		if vals[name], err = field(r.Addr(), "etcdserver.raftNode", name); err != nil {
			return raftClock{}, err
		}
	}
	var ok [4]bool
	rc.ticker, ok[0] = vals["ticker"].Interface().(*time.Ticker)
	rc.heartbeat, ok[1] = vals["heartbeat"].Interface().(time.Duration)
	rc.node, ok[2] = vals["Node"].Interface().(interface{ Tick() })
	rc.tickMu, ok[3] = vals["tickMu"].Interface().(*sync.RWMutex)
	if ok != [4]bool{true, true, true, true} || rc.ticker == nil || rc.node == nil || rc.tickMu == nil ||
		vals["latestTickTs"].Type() != reflect.TypeFor[time.Time]() {
		return raftClock{}, fmt.Errorf(errInternals, "raftNode's ticker, heartbeat, Node, tickMu or latestTickTs has another type")
	}
	rc.lastTick = vals["latestTickTs"]
	return rc, nil
}

// tick is one pass of the raft loop's ticker case, as raftNode.tick does it.
func (rc raftClock) tick() {
	rc.tickMu.Lock()
	defer rc.tickMu.Unlock()
	rc.node.Tick()
	rc.lastTick.Set(reflect.ValueOf(time.Now()))
}

// lessorPrimacy reaches a server's lessor (a *lease.lessor): its mutex and
// its demotec, which is non-nil while the lessor is primary, the only
// state in which it finds expired leases, renews or checkpoints.
type lessorPrimacy struct {
	le      unsafe.Pointer // *lease.lessor
	mu      *sync.RWMutex
	demotec reflect.Value // settable
}

func lessorPrimacyOf(s *etcdserver.EtcdServer) (lessorPrimacy, error) {
	lf, err := field(reflect.ValueOf(s), "etcdserver.EtcdServer", "lessor")
	if err != nil {
		return lessorPrimacy{}, err
	}
	lv := reflect.ValueOf(lf.Interface())
	if lv.Kind() != reflect.Pointer || lv.Type().String() != "*lease.lessor" {
		return lessorPrimacy{}, fmt.Errorf(errInternals, fmt.Sprintf("the server's lessor is a %v, not a *lease.lessor", lv.Type()))
	}
	mu, err := field(lv, "lease.lessor", "mu")
	if err != nil {
		return lessorPrimacy{}, err
	}
	dc, err := field(lv, "lease.lessor", "demotec")
	if err != nil {
		return lessorPrimacy{}, err
	}
	if mu.Type() != reflect.TypeFor[sync.RWMutex]() || dc.Type() != reflect.TypeFor[chan struct{}]() {
		return lessorPrimacy{}, fmt.Errorf(errInternals, "lessor.mu or lessor.demotec has another type")
	}
	return lessorPrimacy{le: lv.UnsafePointer(), mu: (*sync.RWMutex)(unsafe.Pointer(mu.UnsafeAddr())), demotec: dc}, nil
}

// setAside makes the lessor not primary and returns what to restore.
func (lp lessorPrimacy) setAside() chan struct{} {
	lp.mu.Lock()
	defer lp.mu.Unlock()
	saved, _ := lp.demotec.Interface().(chan struct{})
	lp.demotec.Set(reflect.Zero(lp.demotec.Type()))
	return saved
}

// restore puts back what setAside returned, unless etcd promoted the
// lessor meanwhile.
func (lp lessorPrimacy) restore(saved chan struct{}) {
	lp.mu.Lock()
	defer lp.mu.Unlock()
	if lp.demotec.IsNil() {
		lp.demotec.Set(reflect.ValueOf(saved))
	}
}

// pass is one iteration of the lessor's loop that its 500 ms ticker
// would have started: if primary, hand the expired leases to the server.
func (lp lessorPrimacy) pass() { lessorRevokeExpiredLeases(lp.le) }

// lessorRevokeExpiredLeases is lease's (*lessor).revokeExpiredLeases. Its
// declaration has no body; linkname.s, empty, lets the compiler accept it.
//
//go:linkname lessorRevokeExpiredLeases go.etcd.io/etcd/server/v3/lease.(*lessor).revokeExpiredLeases
func lessorRevokeExpiredLeases(le unsafe.Pointer)

// checkFreezeInternals reports whether this etcd build has the fields
// raftClockOf and lessorPrimacyOf reach for, without a running server.
func checkFreezeInternals(s *etcdserver.EtcdServer) error {
	r, err := field(reflect.ValueOf(s), "etcdserver.EtcdServer", "r")
	if err != nil {
		return err
	}
	for _, name := range []string{"ticker", "heartbeat", "Node", "tickMu", "latestTickTs"} {
		if _, err := field(r.Addr(), "etcdserver.raftNode", name); err != nil {
			return err
		}
	}
	_, err = field(reflect.ValueOf(s), "etcdserver.EtcdServer", "lessor")
	return err
}

package cluster

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	"go.etcd.io/etcd/server/v3/embed"
	"go.etcd.io/etcd/server/v3/etcdserver"
	"google.golang.org/grpc"

	"github.com/etcdsim/etcdsim/internal/etcdauth"
	"github.com/etcdsim/etcdsim/internal/memberbin"
)

// memberState is a member's lifecycle.
type memberState int

const (
	stateNew memberState = iota
	stateRunning
	stateKilled
	stateStopped
	stateRemoved
)

func (s memberState) String() string {
	return [...]string{"new", "running", "killed", "stopped", "removed"}[s]
}

// Member is one etcd server of a cluster. Its name, ID, endpoint and peer
// URL stay the same across Kill, Stop and Restart.
type Member struct {
	c     *Cluster
	name  string
	index int
	dir   string
	log   *memberLog
	tls   transport.TLSInfo
	cert  tls.Certificate
	peer  *proxy // at the advertised peer URL
	front *proxy // at the advertised client URL

	// lifeMu serializes Kill, Stop and Restart, which take time; mu is held
	// only briefly, to read or change the fields it guards.
	lifeMu sync.Mutex
	mu     sync.Mutex // guards s, state, id, clientAddr, frozen
	s      server
	state  memberState
	id     uint64
	// clientAddr is the member's real client listener while it runs.
	clientAddr string
	// frozen is set between Freeze and Thaw (freeze.go).
	frozen *freezeState
}

// Cluster returns the cluster the member belongs to.
func (m *Member) Cluster() *Cluster { return m.c }

// Name returns the member's name: "m0", "m1", …
func (m *Member) Name() string { return m.name }

// ID returns the member's raft ID (0 before it first started).
func (m *Member) ID() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.id
}

// Endpoint returns the member's client URL. It never changes and no fault
// touches it (it is refused only while the member is down), so it is for
// observers and the harness; clients under test come from Cluster.Client.
func (m *Member) Endpoint() string { return "http://" + m.front.addr() }

// DialOptions returns the gRPC dial options that reach the member's
// Endpoint: its cluster's (see Cluster.DialOptions).
func (m *Member) DialOptions() []grpc.DialOption { return m.c.DialOptions() }

// PeerURL returns the URL other members reach this one at.
// Peers talk TLS on the real clock, where the certificate tells the peer
// proxy who dialed; on the virtual clock the in-memory network tells it,
// and peers talk plain HTTP.
func (m *Member) PeerURL() string {
	if m.c.net.mem != nil {
		return "http://" + m.peer.addr()
	}
	return "https://" + m.peer.addr()
}

// Running reports whether the member is up.
func (m *Member) Running() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.state == stateRunning
}

// IsLeader reports whether the member, in its own view, leads now. A member
// cut off from the others may still think so; Cluster.Leader asks a quorum.
func (m *Member) IsLeader() bool {
	s := m.running()
	if s == nil {
		return false
	}
	lead, _ := serverView(s)
	return lead != 0 && lead == serverID(s)
}

// Term returns the term of the last entry the member applied, or 0 if it is
// down. It is etcd's own notion of the term (the one the maintenance Status
// API reports): right after an election it still shows the previous term,
// and it reaches the new leader's term once that leader's first entry is
// committed and applied, a heartbeat or two later.
func (m *Member) Term() uint64 {
	if s := m.running(); s != nil {
		_, term := serverView(s)
		return term
	}
	return 0
}

// LeaderID returns the ID of the member this member believes leads, or 0.
func (m *Member) LeaderID() uint64 {
	if s := m.running(); s != nil {
		lead, _ := serverView(s)
		return lead
	}
	return 0
}

// Etcd returns the running embedded server on the real clock, or nil while
// the member is down, on the virtual clock (see Server) and for a member
// binary (Config.MemberBinaries). It is an escape
// hatch: it changes on every restart, and closing it behind the cluster's
// back is not supported.
func (m *Member) Etcd() *embed.Etcd {
	if s := m.running(); s != nil {
		return s.embedded()
	}
	return nil
}

// Server returns the running etcd server, on either clock, or nil while the
// member is down or runs as a member binary (Config.MemberBinaries).
// It is an escape hatch, like Etcd.
func (m *Member) Server() *etcdserver.EtcdServer { return m.server() }

func (m *Member) server() *etcdserver.EtcdServer {
	if s := m.running(); s != nil {
		return s.etcd()
	}
	return nil
}

func (m *Member) running() server {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.state != stateRunning {
		return nil
	}
	return m.s
}

func (m *Member) String() string { return m.name }

// Kill crashes the member: its connections are reset at once, raft stops
// without handing leadership over, and its data directory is kept for
// Restart.
func (m *Member) Kill() error {
	return m.halt(stateKilled)
}

// Stop shuts the member down gracefully: a leader first hands leadership to
// another member. Its data directory is kept for Restart.
func (m *Member) Stop() error {
	return m.halt(stateStopped)
}

func (m *Member) halt(to memberState) error {
	if err := m.c.checkOpen(); err != nil {
		return err
	}
	m.lifeMu.Lock()
	defer m.lifeMu.Unlock()
	m.mu.Lock()
	s, state := m.s, m.state
	if state != stateRunning {
		m.mu.Unlock()
		return fmt.Errorf("%w: %s is %v", ErrNotRunning, m.name, state)
	}
	if m.frozen != nil && to == stateStopped {
		m.mu.Unlock()
		return fmt.Errorf("%w: %s cannot stop gracefully while frozen (a stopped process handles SIGTERM only once it resumes); Thaw it first, or Kill it", ErrFrozen, m.name)
	}
	m.state = to
	m.mu.Unlock()
	shutdown(s, m.c.net, m.name, to == stateStopped)
	m.forgetFreeze()
	return nil
}

// shutdown ends a running server. graceful hands leadership over first,
// while the network still works; otherwise the member's connections are
// reset before raft stops, as when a process dies.
func shutdown(s server, n *network, name string, graceful bool) {
	if graceful {
		stopServer(s)
	}
	n.setDown(name, true)
	s.halt()
}

// Restart brings a killed or stopped member back with its data directory
// and addresses, and waits until it has rejoined and serves requests.
func (m *Member) Restart(ctx context.Context) error {
	if err := m.c.checkOpen(); err != nil {
		return err
	}
	m.lifeMu.Lock()
	defer m.lifeMu.Unlock()
	m.mu.Lock()
	state := m.state
	m.mu.Unlock()
	if state == stateRunning {
		return fmt.Errorf("%w: %s", ErrRunning, m.name)
	}
	if state == stateRemoved {
		return fmt.Errorf("cluster: %s was removed from the cluster and cannot restart", m.name)
	}
	if err := m.start(embed.ClusterStateFlagExisting); err != nil {
		return err
	}
	return m.waitReady(ctx)
}

// embedConfig is the member's etcd configuration.
func (m *Member) embedConfig(clusterState string, initialCluster string) *embed.Config {
	c := m.c
	cfg := embed.NewConfig()
	cfg.Name = m.name
	cfg.Dir = m.dir
	cfg.ListenPeerUrls = []url.URL{{Scheme: "http", Host: "127.0.0.1:0"}}
	purl, _ := url.Parse(m.PeerURL())
	cfg.AdvertisePeerUrls = []url.URL{*purl}
	cfg.ListenClientUrls = []url.URL{{Scheme: "http", Host: "127.0.0.1:0"}}
	cfg.AdvertiseClientUrls = []url.URL{{Scheme: "http", Host: m.front.addr()}}
	cfg.ListenMetricsUrls = nil
	cfg.InitialCluster = initialCluster
	cfg.InitialClusterToken = c.token
	cfg.ClusterState = clusterState
	cfg.TickMs = uint(c.cfg.HeartbeatInterval.Milliseconds())
	cfg.ElectionMs = uint(c.cfg.ElectionTimeout.Milliseconds())
	cfg.UnsafeNoFsync = !c.cfg.Durable
	cfg.PeerTLSInfo = m.tls
	if c.cfg.SnapshotCount > 0 {
		cfg.SnapshotCount = c.cfg.SnapshotCount
	}
	if a := c.cfg.Auth; a != nil {
		cfg.BcryptCost = etcdauth.BcryptCost
		if a.TokenTTL > 0 {
			cfg.AuthTokenTTL = uint(a.TokenTTL / time.Second)
		}
		// Start made the keys before any member, or failed.
		cfg.AuthToken, _ = authTokenOption(a, filepath.Join(c.dir, "auth"))
	}
	setFeatureGates(cfg, c.cfg.FeatureGates)
	cfg.Logger = "zap"
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(m.log.logger(m.name))
	return cfg
}

// start starts the member's etcd on the cluster's clock and points the
// member's proxies at it; it does not wait for the member to be ready.
func (m *Member) start(clusterState string) (err error) {
	cfg := m.embedConfig(clusterState, m.c.initialCluster())
	gate := &requestGate{labels: m.labels()}
	cfg.GRPCAdditionalServerOptions = append(cfg.GRPCAdditionalServerOptions, gate.serverOptions()...)
	// Up before etcd starts, so its own bootstrap requests to peers pass;
	// connections to it are still refused until its proxies have targets.
	m.c.net.setDown(m.name, false)
	var s server
	if m.c.cfg.MemberBinaries {
		s, err = m.startBinaryMember(clusterState)
	} else if m.c.net.mem != nil {
		s, err = startVirtual(cfg, m.c.net.mem, gate)
	} else {
		// etcd's HTTP/JSON gateway dials the client URL as configured, so
		// port 0 would leave it dialing 127.0.0.1:0: give it a port the
		// kernel just handed out. Another process may take it first; then
		// the bind fails, and another port is tried.
		for try := 0; ; try++ {
			if cfg.ListenClientUrls[0].Host, err = freePort(); err == nil {
				s, err = startEmbed(cfg, gate)
			}
			if err == nil || try == 2 || !strings.Contains(err.Error(), "address already in use") {
				break
			}
		}
	}
	if err != nil {
		m.c.net.setDown(m.name, true)
		return fmt.Errorf("cluster: member %s failed to start: %w\n--- last lines of %s's log ---\n%s", m.name, err, m.name, m.log.tail(15))
	}
	clientAddr := s.clientAddr()
	m.mu.Lock()
	m.s, m.state, m.id, m.clientAddr = s, stateRunning, serverID(s), clientAddr
	m.mu.Unlock()
	m.peer.setTarget(s.peerAddr())
	m.front.setTarget(clientAddr)
	m.c.retargetClients(m.name, clientAddr)
	return nil
}

// freePort returns a loopback address with a port nobody listens on now.
var freePort = memberbin.FreePort

// fmtPanic is the error of a server that panicked while starting: a fatal
// log panics with our logger instead of exiting the process.
func fmtPanic(r any) error { return fmt.Errorf("etcd panicked while starting: %v", r) }

// waitReady waits until the member has joined the cluster and serves.
func (m *Member) waitReady(ctx context.Context) error {
	m.mu.Lock()
	s := m.s
	m.mu.Unlock()
	select {
	case <-serverReady(s):
		return nil
	case err := <-s.errc():
		return fmt.Errorf("cluster: member %s stopped while starting: %w\n--- last lines of %s's log ---\n%s", m.name, err, m.name, m.log.tail(15))
	case <-serverDone(s):
		return fmt.Errorf("cluster: member %s stopped while starting\n--- last lines of %s's log ---\n%s", m.name, m.name, m.log.tail(15))
	case <-ctx.Done():
		return fmt.Errorf("cluster: member %s not ready: %w\n--- last lines of %s's log ---\n%s", m.name, context.Cause(ctx), m.name, m.log.tail(15))
	}
}

// closeForCluster ends the member as part of Cluster.Close.
func (m *Member) closeForCluster() error {
	m.lifeMu.Lock()
	defer m.lifeMu.Unlock()
	m.mu.Lock()
	s, state := m.s, m.state
	if state == stateRunning {
		m.state = stateKilled
	}
	m.mu.Unlock()
	if state == stateRunning && s != nil {
		shutdown(s, m.c.net, m.name, false)
	}
	return m.log.close()
}

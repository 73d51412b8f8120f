package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"sort"
	"sync"

	bolt "go.etcd.io/bbolt"
	"go.etcd.io/etcd/client/pkg/v3/types"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/config"
	"go.etcd.io/etcd/server/v3/embed"
	"go.etcd.io/etcd/server/v3/etcdserver"
	"go.etcd.io/etcd/server/v3/etcdserver/api/etcdhttp"
	"go.etcd.io/etcd/server/v3/etcdserver/api/v3client"
	"go.etcd.io/etcd/server/v3/etcdserver/api/v3election"
	"go.etcd.io/etcd/server/v3/etcdserver/api/v3election/v3electionpb"
	"go.etcd.io/etcd/server/v3/etcdserver/api/v3lock"
	"go.etcd.io/etcd/server/v3/etcdserver/api/v3lock/v3lockpb"
	"go.etcd.io/etcd/server/v3/etcdserver/api/v3rpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"

	"github.com/etcdsim/etcdsim/internal/memnet"
)

// vserver is a member's etcd on the virtual clock. It is built the way
// etcd's own integration framework builds members — etcdserver.NewServer,
// then v3rpc's gRPC server and etcdhttp's peer handler — because embed
// listens only on real sockets, whose waits are never durable in a bubble.
// Everything embed would serve a client is served: the KV, watch, lease,
// cluster and maintenance services, and the lock and election services on
// an in-process client of the member's own. Unlike embed, halt closes that
// client, so no goroutine of it outlives the member.
type vserver struct {
	srv      *etcdserver.EtcdServer
	grpc     *grpc.Server
	gate     *requestGate // in front of grpc's unary handlers
	peerHTTP *http.Server
	peerLn   net.Listener
	clientLn net.Listener
	v3c      *clientv3.Client
	errs     chan error
	wg       sync.WaitGroup // the two serve goroutines
}

func (s *vserver) etcd() *etcdserver.EtcdServer { return s.srv }
func (s *vserver) peerAddr() string             { return s.peerLn.Addr().String() }
func (s *vserver) clientAddr() string           { return s.clientLn.Addr().String() }
func (s *vserver) errc() <-chan error           { return s.errs }
func (s *vserver) embedded() *embed.Etcd        { return nil }
func (s *vserver) requests() *requestGate       { return s.gate }

func (s *vserver) halt() {
	s.gate.close()
	s.srv.HardStop()
	s.grpc.Stop()
	s.v3c.Close()
	s.peerHTTP.Close()
	s.peerLn.Close()
	s.clientLn.Close()
	s.wg.Wait()
}

// startVirtual starts a member's etcd on the in-memory network with the
// configuration embed would use, from cfg (Member.embedConfig).
func startVirtual(cfg *embed.Config, n *memnet.Net, gate *requestGate) (_ server, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmtPanic(r)
		}
	}()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	scfg, err := serverConfig(cfg)
	if err != nil {
		return nil, err
	}
	s := &vserver{errs: make(chan error, 2), gate: gate}
	if s.peerLn, err = n.Listen(""); err != nil {
		return nil, err
	}
	if s.clientLn, err = n.Listen(""); err != nil {
		s.peerLn.Close()
		return nil, err
	}
	defer func() {
		if err != nil {
			s.peerLn.Close()
			s.clientLn.Close()
		}
	}()
	name := cfg.Name
	var bridge *joinBridge
	if needsJoinBridge(!cfg.IsNewCluster(), cfg.Dir) {
		if bridge, err = bridgeJoin(n, name, peerHosts(scfg.InitialPeerURLsMap, name)); err != nil {
			return nil, err
		}
	}
	defer bridge.close()
	if s.srv, err = etcdserver.NewServer(scfg); err != nil {
		return nil, err
	}
	if err := usePeerDialer(s.srv, func(ctx context.Context, addr string) (net.Conn, error) { return n.DialAs(ctx, addr, name) }); err != nil {
		s.srv.Cleanup()
		return nil, err
	}
	s.srv.Start()
	s.peerHTTP = &http.Server{
		Handler:  etcdhttp.NewPeerHandler(scfg.Logger, s.srv),
		ErrorLog: log.New(io.Discard, "", 0),
	}
	s.grpc = v3rpc.Server(s.srv, nil, nil, grpcOptions(cfg)...)
	s.v3c = v3client.New(s.srv)
	v3electionpb.RegisterElectionServer(s.grpc, v3election.NewElectionServer(s.v3c))
	v3lockpb.RegisterLockServer(s.grpc, v3lock.NewLockServer(s.v3c))
	s.wg.Go(func() { s.serveErr("peer", s.peerHTTP.Serve(s.peerLn)) })
	s.wg.Go(func() { s.serveErr("client", s.grpc.Serve(s.clientLn)) })
	return s, nil
}

// peerHosts returns the host:port of every peer URL in urls but self's.
func peerHosts(urls types.URLsMap, self string) []string {
	var out []string
	for name, us := range urls {
		if name == self {
			continue
		}
		for _, u := range us {
			out = append(out, u.Host)
		}
	}
	sort.Strings(out)
	return out
}

// serveErr reports a listener that failed other than by being closed.
func (s *vserver) serveErr(what string, err error) {
	if err == nil || errors.Is(err, http.ErrServerClosed) || errors.Is(err, grpc.ErrServerStopped) || errors.Is(err, net.ErrClosed) {
		return
	}
	select {
	case s.errs <- fmt.Errorf("%s listener: %w", what, err):
	default:
	}
}

// grpcOptions are the gRPC server options embed derives from cfg
// (embed/etcd.go, serveClients).
func grpcOptions(cfg *embed.Config) []grpc.ServerOption {
	var opts []grpc.ServerOption
	if cfg.GRPCKeepAliveMinTime > 0 {
		opts = append(opts, grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: cfg.GRPCKeepAliveMinTime}))
	}
	if cfg.GRPCKeepAliveInterval > 0 && cfg.GRPCKeepAliveTimeout > 0 {
		opts = append(opts, grpc.KeepaliveParams(keepalive.ServerParameters{Time: cfg.GRPCKeepAliveInterval, Timeout: cfg.GRPCKeepAliveTimeout}))
	}
	return append(opts, cfg.GRPCAdditionalServerOptions...)
}

// serverConfig is the etcdserver configuration embed.StartEtcd makes of cfg
// (the srvcfg literal of embed/etcd.go), for every field a member of ours
// sets or leaves at embed's default (auto-compaction stays off: its
// retention is 0); cfg must have been validated.
func serverConfig(cfg *embed.Config) (config.ServerConfig, error) {
	urlsmap, token, err := cfg.PeerURLsMapAndToken("etcd")
	if err != nil {
		return config.ServerConfig{}, fmt.Errorf("initial cluster: %w", err)
	}
	freelist := bolt.FreelistMapType
	if cfg.BackendFreelistType == "array" {
		freelist = bolt.FreelistArrayType
	}
	scfg := config.ServerConfig{
		Name:                              cfg.Name,
		ClientURLs:                        cfg.AdvertiseClientUrls,
		PeerURLs:                          cfg.AdvertisePeerUrls,
		DataDir:                           cfg.Dir,
		DedicatedWALDir:                   cfg.WalDir,
		SnapshotCount:                     cfg.SnapshotCount,
		SnapshotCatchUpEntries:            cfg.SnapshotCatchUpEntries,
		MaxSnapFiles:                      cfg.MaxSnapFiles,
		MaxWALFiles:                       cfg.MaxWalFiles,
		InitialPeerURLsMap:                urlsmap,
		InitialClusterToken:               token,
		NewCluster:                        cfg.IsNewCluster(),
		PeerTLSInfo:                       cfg.PeerTLSInfo,
		TickMs:                            cfg.TickMs,
		ElectionTicks:                     cfg.ElectionTicks(),
		InitialElectionTickAdvance:        cfg.InitialElectionTickAdvance,
		AutoCompactionMode:                cfg.AutoCompactionMode,
		QuotaBackendBytes:                 cfg.QuotaBackendBytes,
		BackendBatchLimit:                 cfg.BackendBatchLimit,
		BackendFreelistType:               freelist,
		BackendBatchInterval:              cfg.BackendBatchInterval,
		MaxTxnOps:                         cfg.MaxTxnOps,
		MaxRequestBytes:                   cfg.MaxRequestBytes,
		MaxConcurrentStreams:              cfg.MaxConcurrentStreams,
		SocketOpts:                        cfg.SocketOpts,
		StrictReconfigCheck:               cfg.StrictReconfigCheck,
		ClientCertAuthEnabled:             cfg.ClientTLSInfo.ClientCertAuth,
		AuthToken:                         cfg.AuthToken,
		BcryptCost:                        cfg.BcryptCost,
		TokenTTL:                          cfg.AuthTokenTTL,
		CORS:                              cfg.CORS,
		HostWhitelist:                     cfg.HostWhitelist,
		CorruptCheckTime:                  cfg.CorruptCheckTime,
		CompactHashCheckTime:              cfg.CompactHashCheckTime,
		PreVote:                           cfg.PreVote,
		Logger:                            cfg.GetLogger(),
		ForceNewCluster:                   cfg.ForceNewCluster,
		UnsafeNoFsync:                     cfg.UnsafeNoFsync,
		CompactionBatchLimit:              cfg.CompactionBatchLimit,
		CompactionSleepInterval:           cfg.CompactionSleepInterval,
		WatchProgressNotifyInterval:       cfg.WatchProgressNotifyInterval,
		DowngradeCheckTime:                cfg.DowngradeCheckTime,
		WarningApplyDuration:              cfg.WarningApplyDuration,
		WarningUnaryRequestDuration:       cfg.WarningUnaryRequestDuration,
		MemoryMlock:                       cfg.MemoryMlock,
		BootstrapDefragThresholdMegabytes: cfg.BootstrapDefragThresholdMegabytes,
		MaxLearners:                       cfg.MaxLearners,
		V2Deprecation:                     cfg.V2DeprecationEffective(),
		LocalAddress:                      cfg.InferLocalAddr(),
		ServerFeatureGate:                 cfg.ServerFeatureGate,
		Metrics:                           cfg.Metrics,
	}
	scfg.PeerTLSInfo.LocalAddr = scfg.LocalAddress
	return scfg, nil
}

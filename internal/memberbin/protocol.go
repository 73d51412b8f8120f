package memberbin

import (
	"fmt"
	"net/url"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	"go.etcd.io/etcd/server/v3/embed"
)

// The protocol: what a cluster and its member binary say to each other.
// The cluster sends the member's etcd configuration (Spec) as one JSON
// line on the binary's stdin; the binary writes Reports back, one JSON
// line each on its stdout, and etcd's logs on its stderr.

// Spec is a member's etcd configuration: the serializable part of the
// embed.Config the cluster builds for it.
type Spec struct {
	Name                string `json:"name"`
	Dir                 string `json:"dir"`
	AdvertisePeerURL    string `json:"advertise_peer_url"`
	AdvertiseClientURL  string `json:"advertise_client_url"`
	InitialCluster      string `json:"initial_cluster"`
	InitialClusterToken string `json:"initial_cluster_token"`
	ClusterState        string `json:"cluster_state"`
	TickMs              uint   `json:"tick_ms"`
	ElectionMs          uint   `json:"election_ms"`
	UnsafeNoFsync       bool   `json:"unsafe_no_fsync,omitempty"`
	SnapshotCount       uint64 `json:"snapshot_count,omitempty"`
	// PeerTLS is the member's peer certificate, key and CA, as files.
	PeerTLS TLS `json:"peer_tls"`
	// AuthToken, BcryptCost and AuthTokenTTL are etcd's auth settings;
	// zero means etcd's defaults.
	AuthToken    string `json:"auth_token,omitempty"`
	BcryptCost   uint   `json:"bcrypt_cost,omitempty"`
	AuthTokenTTL uint   `json:"auth_token_ttl,omitempty"`
	// ViewEvery is how often the binary looks at its own view of the
	// leader and the term, and reports it when it changed. 0 means 1ms.
	ViewEvery time.Duration `json:"view_every,omitempty"`
}

// FromEmbed takes the serializable part of cfg. Its listen URLs are not
// taken: the binary listens on loopback ports of its own choosing and
// reports them (Report.Peer, Report.Client).
func FromEmbed(cfg *embed.Config) (Spec, error) {
	if len(cfg.AdvertisePeerUrls) != 1 || len(cfg.AdvertiseClientUrls) != 1 {
		return Spec{}, fmt.Errorf("memberbin: a member advertises one peer and one client URL, not %d and %d", len(cfg.AdvertisePeerUrls), len(cfg.AdvertiseClientUrls))
	}
	return Spec{
		Name:                cfg.Name,
		Dir:                 cfg.Dir,
		AdvertisePeerURL:    cfg.AdvertisePeerUrls[0].String(),
		AdvertiseClientURL:  cfg.AdvertiseClientUrls[0].String(),
		InitialCluster:      cfg.InitialCluster,
		InitialClusterToken: cfg.InitialClusterToken,
		ClusterState:        cfg.ClusterState,
		TickMs:              cfg.TickMs,
		ElectionMs:          cfg.ElectionMs,
		UnsafeNoFsync:       cfg.UnsafeNoFsync,
		SnapshotCount:       cfg.SnapshotCount,
		PeerTLS: TLS{CertFile: cfg.PeerTLSInfo.CertFile, KeyFile: cfg.PeerTLSInfo.KeyFile,
			TrustedCAFile: cfg.PeerTLSInfo.TrustedCAFile, ClientCertAuth: cfg.PeerTLSInfo.ClientCertAuth},
		AuthToken:    cfg.AuthToken,
		BcryptCost:   cfg.BcryptCost,
		AuthTokenTTL: cfg.AuthTokenTTL,
	}, nil
}

// TLS is the serializable part of a transport.TLSInfo: files and whether
// peers must show a certificate.
type TLS struct {
	CertFile       string `json:"cert_file,omitempty"`
	KeyFile        string `json:"key_file,omitempty"`
	TrustedCAFile  string `json:"trusted_ca_file,omitempty"`
	ClientCertAuth bool   `json:"client_cert_auth,omitempty"`
}

// Embed is the embed.Config the binary runs, listening for peers on
// peerListen and for clients on clientListen (host:port, port 0 for any).
// Logging is the caller's to set.
func (s Spec) Embed(peerListen, clientListen string) (*embed.Config, error) {
	purl, err := url.Parse(s.AdvertisePeerURL)
	if err != nil {
		return nil, fmt.Errorf("memberbin: advertise_peer_url %q: %w", s.AdvertisePeerURL, err)
	}
	curl, err := url.Parse(s.AdvertiseClientURL)
	if err != nil {
		return nil, fmt.Errorf("memberbin: advertise_client_url %q: %w", s.AdvertiseClientURL, err)
	}
	cfg := embed.NewConfig()
	cfg.Name = s.Name
	cfg.Dir = s.Dir
	cfg.ListenPeerUrls = []url.URL{{Scheme: "http", Host: peerListen}}
	cfg.AdvertisePeerUrls = []url.URL{*purl}
	cfg.ListenClientUrls = []url.URL{{Scheme: "http", Host: clientListen}}
	cfg.AdvertiseClientUrls = []url.URL{*curl}
	cfg.ListenMetricsUrls = nil
	cfg.InitialCluster = s.InitialCluster
	cfg.InitialClusterToken = s.InitialClusterToken
	cfg.ClusterState = s.ClusterState
	cfg.TickMs = s.TickMs
	cfg.ElectionMs = s.ElectionMs
	cfg.UnsafeNoFsync = s.UnsafeNoFsync
	if s.SnapshotCount > 0 {
		cfg.SnapshotCount = s.SnapshotCount
	}
	cfg.PeerTLSInfo = transport.TLSInfo{CertFile: s.PeerTLS.CertFile, KeyFile: s.PeerTLS.KeyFile,
		TrustedCAFile: s.PeerTLS.TrustedCAFile, ClientCertAuth: s.PeerTLS.ClientCertAuth}
	if s.AuthToken != "" {
		cfg.AuthToken = s.AuthToken
	}
	if s.BcryptCost > 0 {
		cfg.BcryptCost = s.BcryptCost
	}
	if s.AuthTokenTTL > 0 {
		cfg.AuthTokenTTL = s.AuthTokenTTL
	}
	return cfg, nil
}

// Report is one line the binary writes on its stdout. Exactly one of its
// groups is set, as Kind says.
type Report struct {
	Kind Kind `json:"kind"`
	// Started: the member's ID and the addresses of its own listeners.
	ID     uint64 `json:"id,omitempty"`
	Peer   string `json:"peer,omitempty"`
	Client string `json:"client,omitempty"`
	// View: the leader the member believes in (0 for none) and etcd's
	// term (of the last applied entry), both as etcd itself reports them.
	Leader uint64 `json:"leader,omitempty"`
	Term   uint64 `json:"term,omitempty"`
	// Streams: every open client stream, by the connection it came on.
	Streams []Stream `json:"streams,omitempty"`
}

// Kind says what a Report reports.
type Kind string

const (
	// Started: etcd's servers are up; the member may not be ready yet.
	Started Kind = "started"
	// Ready: the member has joined the cluster and serves.
	Ready Kind = "ready"
	// View: the member's view of the leader or the term changed.
	View Kind = "view"
	// Streams: the set of open client streams changed.
	Streams Kind = "streams"
)

// Stream is one open gRPC stream of a client: the remote address of the
// connection it came on, as the member sees it, and its method.
type Stream struct {
	Addr   string `json:"addr"`
	Method string `json:"method"`
}

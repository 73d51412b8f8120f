package cluster

import (
	"fmt"
	"time"

	"github.com/etcdsim/etcdsim/seed"
)

// MaxMembers is the largest cluster Start builds.
const MaxMembers = 9

// Config describes a cluster. The zero Config is a 3-member cluster with
// the fast profile (10 ms heartbeat, 100 ms election timeout, no fsync), its
// data in a temporary directory removed by Close, and etcd's logs kept only
// in memory (their tail is shown when a member fails to start).
type Config struct {
	// Members is the number of members, 1 to 9. 0 means 3.
	Members int `json:"members,omitempty"`
	// HeartbeatInterval is raft's heartbeat. 0 means 10ms. etcd counts it
	// in whole milliseconds.
	HeartbeatInterval time.Duration `json:"heartbeat_interval,omitempty"`
	// ElectionTimeout is raft's election timeout, at least five heartbeats.
	// 0 means 100ms, or ten heartbeats if HeartbeatInterval is set.
	ElectionTimeout time.Duration `json:"election_timeout,omitempty"`
	// Durable turns fsync on, for tests where a crash must lose nothing
	// that was acknowledged. false (the fast profile) never fsyncs.
	Durable bool `json:"durable,omitempty"`
	// DataDir is where members keep their data, one subdirectory each. ""
	// means a new temporary directory that Close removes; a directory given
	// here is kept, and must not hold a previous cluster's members.
	DataDir string `json:"data_dir,omitempty"`
	// LogDir, if set, receives one log file per member (m0.log, …) at
	// info level. "" keeps logs in memory only.
	LogDir string `json:"log_dir,omitempty"`
	// SnapshotCount is how many applied entries trigger a raft snapshot.
	// 0 means etcd's default (10000). Small values exercise snapshot
	// transfer to lagging members.
	SnapshotCount uint64 `json:"snapshot_count,omitempty"`
	// Clock is the clock the cluster runs on: ClockReal (embedded etcd on
	// loopback sockets, the wall clock) or ClockVirtual (the same etcd
	// server on an in-memory network, on the clock of the synctest bubble
	// Start must be called in). ClockDefault means virtual when Start is
	// called inside a bubble, real outside one.
	Clock Clock `json:"clock,omitempty"`
	// Latency is every link's one-way delay, all the time, beside what
	// faults set: each chunk of bytes is held back Latency±Latency/2, drawn
	// from the seed. It is the network, not a fault: no heal removes it. 0
	// means none — loopback or in-memory, as fast as the machine; on the
	// virtual clock that is no time at all, so a schedule that needs a
	// round trip to take time sets it. With 0, a healthy cluster keeps
	// every lease its clients renew, as with any latency; but every run of
	// a schedule then has the same timing, so a fault that lands on the
	// instant of a lease renewal lands on it in every run. A follower
	// forwards a renewal to the leader it knows and waits for the answer up
	// to etcd's request timeout (5 s plus two election timeouts), and the
	// renewals the client sends meanwhile queue behind it on the same
	// stream; a leader cut off at that instant costs a lease whose TTL
	// runs out first. A latency of a millisecond or more
	// spreads such instants by the seed.
	Latency time.Duration `json:"latency,omitempty"`
	// ClientKeepAliveTime is how long a named client's connection to a
	// member may be idle before gRPC pings the member to see that it is
	// still there (clientv3.Config.DialKeepAliveTime). 0 means clientv3's
	// default, which is what most of etcd's users run: no pings, so a
	// member whose bytes vanish (a blackhole, a frozen or dead machine
	// whose connection no RST ends) is noticed only by each request's own
	// timeout, and a stream on it — a Session's lease keepalive — waits.
	// gRPC pings no more often than every 10s: a smaller value is 10s.
	// ClientConfig.Configure still overrides it per client.
	ClientKeepAliveTime time.Duration `json:"client_keepalive_time,omitempty"`
	// ClientKeepAliveTimeout is how long a ping may go unanswered before
	// gRPC closes the connection and the client moves to another member
	// (clientv3.Config.DialKeepAliveTimeout). 0 means clientv3's default:
	// gRPC's 20s when ClientKeepAliveTime is set.
	ClientKeepAliveTimeout time.Duration `json:"client_keepalive_timeout,omitempty"`
	// Auth, if set, turns etcd's authentication on, with these users and
	// roles (auth.go). nil means off: every client may do anything.
	Auth *AuthConfig `json:"auth,omitempty"`
	// MemberBinaries runs each member as a member binary: an
	// operating-system program of its own (internal/memberbin/etcdmember,
	// built from this module's source on first use: it needs the Go
	// toolchain), on the real clock only. A Freeze is then SIGSTOP and a
	// Thaw SIGCONT, which stop and resume everything inside the member,
	// every clock included; a Kill is SIGKILL; Restart starts a new binary
	// on the same data. The members die with this process. Member.Etcd and Member.Server are
	// nil for them: the cluster knows them through their sockets and
	// their reports of the leader, the term and their open streams.
	// false runs members in this process.
	MemberBinaries bool `json:"member_binaries,omitempty"`
	// FeatureGates sets etcd's server feature gates on every member, in
	// the form of etcd's --feature-gates flag: "FastLeaseKeepAlive=false",
	// or several joined by commas. "" leaves etcd's defaults (in v3.7.3,
	// FastLeaseKeepAlive on). A gate etcd does not know is an error; member
	// binaries take no gates.
	FeatureGates string `json:"feature_gates,omitempty"`
	// Seed seeds the network's jitter, from its own stream of the seed
	// (see seed.Seed.Rand), so a run's seed gives it the same samples
	// every time. 0 is a valid seed.
	Seed seed.Seed `json:"seed,omitempty"`
}

// withDefaults returns cfg with every zero field given its documented
// default, or an error naming the field that is out of range.
func (cfg Config) withDefaults() (Config, error) {
	if cfg.Members == 0 {
		cfg.Members = 3
	}
	if err := cfg.Clock.Validate(); err != nil {
		return cfg, err
	}
	cfg.Clock = cfg.Clock.Resolve()
	if cfg.Members < 1 || cfg.Members > MaxMembers {
		return cfg, fmt.Errorf("cluster: Config.Members is %d; valid: 1 to %d (0 means 3)", cfg.Members, MaxMembers)
	}
	if cfg.Latency < 0 {
		return cfg, fmt.Errorf("cluster: Config.Latency is %v; it must not be negative (0 means none)", cfg.Latency)
	}
	if cfg.ClientKeepAliveTime < 0 || cfg.ClientKeepAliveTimeout < 0 {
		return cfg, fmt.Errorf("cluster: Config.ClientKeepAliveTime (%v) and Config.ClientKeepAliveTimeout (%v) must not be negative (0 means clientv3's default: no pings)", cfg.ClientKeepAliveTime, cfg.ClientKeepAliveTimeout)
	}
	if cfg.ClientKeepAliveTimeout > 0 && cfg.ClientKeepAliveTime == 0 {
		return cfg, fmt.Errorf("cluster: Config.ClientKeepAliveTimeout is %v but Config.ClientKeepAliveTime is 0, which sends no pings to time out; set both", cfg.ClientKeepAliveTimeout)
	}
	if err := checkMemberBinaries(cfg); err != nil {
		return cfg, err
	}
	if err := checkFeatureGates(cfg); err != nil {
		return cfg, err
	}
	if err := cfg.Auth.validate(); err != nil {
		return cfg, err
	}
	if cfg.HeartbeatInterval < 0 || cfg.ElectionTimeout < 0 {
		return cfg, fmt.Errorf("cluster: Config.HeartbeatInterval (%v) and Config.ElectionTimeout (%v) must not be negative", cfg.HeartbeatInterval, cfg.ElectionTimeout)
	}
	if cfg.HeartbeatInterval == 0 {
		cfg.HeartbeatInterval = 10 * time.Millisecond
		if cfg.ElectionTimeout == 0 {
			cfg.ElectionTimeout = 100 * time.Millisecond
		}
	}
	if cfg.HeartbeatInterval%time.Millisecond != 0 {
		return cfg, fmt.Errorf("cluster: Config.HeartbeatInterval is %v; etcd counts it in whole milliseconds", cfg.HeartbeatInterval)
	}
	if cfg.ElectionTimeout == 0 {
		cfg.ElectionTimeout = 10 * cfg.HeartbeatInterval
	}
	if cfg.ElectionTimeout%time.Millisecond != 0 {
		return cfg, fmt.Errorf("cluster: Config.ElectionTimeout is %v; etcd counts it in whole milliseconds", cfg.ElectionTimeout)
	}
	if cfg.ElectionTimeout < 5*cfg.HeartbeatInterval {
		return cfg, fmt.Errorf("cluster: Config.ElectionTimeout %v is less than five heartbeats (Config.HeartbeatInterval %v)", cfg.ElectionTimeout, cfg.HeartbeatInterval)
	}
	if cfg.ElectionTimeout > 50*time.Second {
		return cfg, fmt.Errorf("cluster: Config.ElectionTimeout %v is longer than etcd's limit of 50s", cfg.ElectionTimeout)
	}
	return cfg, nil
}

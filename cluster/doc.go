// Package cluster starts multi-member etcd clusters inside one process, on
// a network whose every directed link the harness controls.
//
// Every member listens on kernel-chosen loopback ports behind proxies that
// belong to the cluster: a peer proxy at its advertised peer URL and a front
// proxy at its advertised client URL. Named clients reach each member
// through a proxy of their own. Peer traffic uses TLS with one certificate
// per member, so the peer proxy knows the sender of every connection — raft
// streams, pipeline and snapshot POSTs, lease-keepalive forwarding — and a
// partition stops all of it. See SetLink, Partition, Isolate and HealAll,
// and NewOverlay for conditions that come off again without undoing what
// others set meanwhile.
// Code that dials etcd itself takes ClientEndpoints(name), the URLs of a
// named client's links, and every fault aimed at that client reaches it;
// CrashClient and RestartClient take a client down as a dying process and
// bring it back.
//
// A library that builds its own etcd client takes ClientConfigOf(cli) — a
// clientv3.Config whose dialer and context are the named client's — or,
// if it takes nothing but addresses, EndpointsOf(cli). Either way it runs
// on the virtual clock too, every fault aimed at the named client reaches
// it, and its connections close when that client's process crashes.
//
// What the package installs in the process, and why: for EndpointsOf on
// the virtual clock, internal/libdial's init adds three per-target dial
// options to gRPC's process-wide list (google.golang.org/grpc/internal's
// AddGlobalPerTargetDialOptions, reached with go:linkname, since gRPC has
// no public hook a library that builds its own client cannot bypass).
// They act only on a channel whose target names an address under
// .etcdsim.invalid, a reserved domain no resolver answers for, that
// EndpointsOf gave out: they give it a dialer into the owning cluster's
// in-memory network and hand the channel to the named client's process,
// which closes it when the process ends. Every other gRPC channel of the
// process gets nothing from them and dials as it would without etcdsim.
// internal/libdial's routes.go states the model.
//
// In a test:
//
//	c := cluster.New(t, cluster.Config{}) // 3 members, fast profile
//	cli, err := c.Client("c1")
//	...
//	lead, err := c.Leader(ctx)
//	c.Isolate(lead.Name())                // the leader hears nothing
//	newLead, err := c.Leader(ctx)         // the majority elects another
//	c.HealAll()
//
// In a program, Start and Close do the same with an error instead of a
// testing.TB.
//
// On the real clock, Config.MemberBinaries runs each member as a member
// binary, an operating-system program of its own (package memberbin
// builds it on first use): Freeze is then SIGSTOP and Thaw SIGCONT, Kill
// is SIGKILL, and the members die with the process that started them.
//
// What the package owns is the cluster itself: its members' lives, its
// network of links and proxies, its named clients and their processes,
// and the clock they all run on. The machinery beneath lives in packages
// of its own, each one job: internal/memnet (the virtual clock's
// in-memory network), internal/memberbin (member binaries: their build,
// start, signals and line protocol), internal/libdial (how a library's
// own etcd client gets into the cluster's network), internal/peertls (the
// members' peer certificates) and internal/etcdauth (etcd's auth API as
// the cluster uses it).
package cluster

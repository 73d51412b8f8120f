package scenarios

import (
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
)

// The upstream family reproduces reports against etcd itself, and
// reports against etcd's users that etcd's own code, run as they run it,
// shows (milvus-29345). Each
// scenario runs etcd's own code unchanged — client/v3/concurrency, or the
// server's lock and election services — wrapped only in the calling
// pattern the report describes, under a schedule aimed at the moment the
// report says matters, and expects the violation the report describes.
// Beside each reproduction a twin runs the same schedule with the fix and
// expects a pass. A scenario whose report upstream has already fixed in
// the etcd of go.mod expects a pass and says so.
//
// The reports are data (upstreamReports): the scenario constructors, the
// test that pins each reproduction to the etcd version it was confirmed
// on, and docs/upstream.md all read them.

// ConfirmedOn is the etcd version every upstream scenario was confirmed
// on: each reproduction met its violation, and each fix passed, with this
// version of go.etcd.io/etcd in go.mod.
const ConfirmedOn = "v3.7.3"

// What an upstream scenario shows (Upstream.Shows).
const (
	// ShowsReport: the reproduction, expecting the violation the report
	// describes.
	ShowsReport = "report"
	// ShowsFix: the same schedule with the fix, expecting a pass.
	ShowsFix = "fix"
	// ShowsFixedUpstream: etcd's own code already does the right thing in
	// this version, expecting a pass.
	ShowsFixedUpstream = "fixed-upstream"
	// ShowsControl: the report's recipe without the fault that matters,
	// expecting a pass, so that the reproduction's violation is the
	// fault's doing.
	ShowsControl = "control"
)

// Upstream is the evidence an upstream scenario carries: the report it
// reproduces, what the run shows of it, and how to run it.
type Upstream struct {
	// Report is the report's URL; "" for a finding of etcdsim's own that
	// is not reported upstream.
	Report string `json:"report"`
	// Status is the report's status upstream when the scenario was
	// written — "open", "closed", "closed, fixed", "closed, documented
	// behaviour" — and what it means: a proposed fix, why it was closed.
	Status string `json:"status"`
	// API is what in etcd the report is about: package and method.
	API string `json:"api"`
	// Shows is ShowsReport, ShowsFix, ShowsFixedUpstream or ShowsControl.
	Shows string `json:"shows"`
	// ConfirmedOn is the etcd version the scenario was confirmed on.
	ConfirmedOn string `json:"confirmed_on"`
	// Etcd is the version of go.etcd.io/etcd/client/v3 the program that
	// built the scenario runs, from its build info; "" when it has none
	// (a test binary carries no module list).
	Etcd string `json:"etcd,omitempty"`
	// Command runs the scenario.
	Command string `json:"command"`
}

// upstreamReport is one report against etcd and what the upstream
// scenarios make of it; or a finding of etcdsim's own about etcd's code,
// not reported upstream, which has no url.
type upstreamReport struct {
	id     string   // "etcd-22082": the second part of its scenarios' names
	url    string   // the report; "" for a finding not reported upstream
	also   []string // related reports and analyses
	status string   // "open", "closed", "closed, fixed", "closed, documented behaviour"
	note   string   // what the status means here: a proposed fix, why it was closed
	api    string   // see Upstream.API
	what   string   // what goes wrong, in a sentence
	fix    string   // what the fix twin changes, in a sentence; "" if there is none
}

// upstreamReports are the reports the upstream scenarios reproduce, in the
// order the family lists them.
var upstreamReports = []upstreamReport{
	{
		id: "etcd-22082", url: "https://github.com/etcd-io/etcd/issues/22082",
		also:   []string{"https://github.com/etcd-io/etcd/pull/22115"},
		status: "open", note: "fix proposed in etcd PR #22115",
		api: "client/v3/concurrency: Mutex.Unlock",
		what: "an Unlock whose delete committed but whose answer was lost, retried after the process locked again on " +
			"the same session, deletes the newer lock by name, and a second client enters",
		fix: "the release deletes the key only if its create revision is still the one the Mutex acquired, in one transaction",
	},
	{
		id: "etcd-19597", url: "https://github.com/etcd-io/etcd/issues/19597",
		also: []string{"https://github.com/etcd-io/etcd/pull/22387", "https://github.com/etcd-io/etcd/pull/19598",
			"https://github.com/cagriekin/charts/pull/327"},
		status: "open", note: "fix proposed in etcd PR #22387 (an earlier one, PR #19598, was closed)",
		api: "client/v3/concurrency: Election.Campaign (Mutex.Lock re-reads its key since before v3.7.3)",
		what: "a candidate whose session expires while it waits in Campaign keeps waiting, then returns success " +
			"over a key that no longer exists: two leaders",
		fix: "the wait ends with the lease, and a linearizable read after it checks the candidate's key (election recipe rechecked)",
	},
	{
		id: "etcd-21128", url: "https://github.com/etcd-io/etcd/issues/21128",
		also: []string{"https://github.com/etcd-io/etcd/pull/21165", "https://github.com/cadence-workflow/cadence/pull/7608",
			"https://github.com/sorintlab/stolon/pull/659"},
		status: "open", note: "fix proposed in etcd PR #21165",
		api: "client/v3/concurrency: Election.Campaign, then Election.Resign",
		what: "a Campaign whose wait fails with anything but its context's end (a watch resumed from a compacted " +
			"revision) leaves its candidate key, which Resign cannot remove: it leads with no process behind it, " +
			"and the election has no leader while the process lives",
		fix: "after a failed Campaign the candidate key is deleted if it still has the create revision Campaign gave it",
	},
	{
		id: "etcd-22123", url: "https://github.com/etcd-io/etcd/issues/22123",
		also: []string{"https://github.com/etcd-io/etcd/pull/22124", "https://github.com/etcd-io/etcd/pull/22211",
			"https://github.com/etcd-io/etcd/pull/22437"},
		status: "open", note: "fixes proposed in etcd PRs #22124, #22211 and #22437",
		api: "client/v3/concurrency: Election.Resign",
		what: "a Resign whose request never reaches etcd forgets the term anyway: the retried Resign returns nil, " +
			"the leader key stays on a session that lives on, and the process leads while it believes it resigned",
		fix: "a failed Resign keeps the key and revision, so that the retry runs the delete again",
	},
	{
		id: "etcd-19091", url: "https://github.com/etcd-io/etcd/issues/19091",
		status: "closed", note: "closed as stale, unfixed",
		api: "client/v3/leasing: KV.Get",
		what: "the leasing KV serves a key from its cache for as long as its session looks alive to the client, " +
			"which learns of the lease's end only after the server has let it go and another client has written the key",
		fix: "serve from the cache only before the send time of the last answered keepalive plus the TTL, and read from the cluster after",
	},
	{
		id: "etcd-11456", url: "https://github.com/etcd-io/etcd/issues/11456",
		also:   []string{"https://jepsen.io/analyses/etcd-3.4.3"},
		status: "closed", note: "Mutex.Lock, which the lock service runs, re-reads its key after the wait, and the service returns its error",
		api: "server v3lock: Lock (the lock service, etcdctl lock)",
		what: "the lock service answered a Lock whose lease had expired while it waited, so the caller was told " +
			"it held a lock it did not",
	},
	{
		id: "etcd-11360", url: "https://github.com/etcd-io/etcd/issues/11360",
		also:   []string{"https://github.com/etcd-io/etcd/pull/11364", "https://github.com/etcd-io/etcd/pull/11391"},
		status: "closed", note: "documented: one session per holder; fixes #11364 and #11391 closed unmerged",
		api: "client/v3/concurrency: Mutex on a shared Session",
		what: "goroutines that share one session share the mutex key, so each Lock finds its key already there " +
			"and all of them hold the lock",
		fix: "a session per holder (lock recipe mutex)",
	},
	{
		id: "etcd-10811", url: "https://github.com/etcd-io/etcd/issues/10811",
		also:   []string{"https://jepsen.io/analyses/etcd-3.4.3", "https://github.com/etcd-io/etcd/issues/11456"},
		status: "closed", note: "a lease cannot stop a holder that is paused or cut off; fence the resource",
		api: "client/v3/concurrency: Mutex",
		what: "a holder paused or cut off from etcd past its TTL loses the lock without knowing it, the next " +
			"waiter takes it, and the first writes to the shared resource after its successor",
		fix: "every write carries the holder's create revision as a fencing token, and the resource refuses a lower one (lock recipe mutex)",
	},
	{
		id: "etcd-9395", url: "https://github.com/etcd-io/etcd/issues/9395",
		also: []string{"https://github.com/etcd-io/etcd/issues/9888", "https://github.com/etcd-io/etcd/issues/13294",
			"https://github.com/etcd-io/etcd/issues/17132"},
		status: "closed, documented behaviour",
		note: "lease checkpointing (feature gate LeaseCheckpoint) checkpoints every 5 minutes, so it keeps no " +
			"lease shorter than that from the reset",
		api: "server lessor: Promote on a leader change",
		what: "every new leader gives every lease its full TTL again, so under a storm of leader changes a crashed " +
			"holder's lock stays held until the storm ends plus a TTL",
	},
	{
		id: "etcd-15247", url: "https://github.com/etcd-io/etcd/issues/15247",
		also:   []string{"https://github.com/etcd-io/etcd/pull/16822", "https://github.com/etcd-io/etcd/issues/12528"},
		status: "closed",
		note: "the fix (etcd PR #16822) checks leadership before revoking, but skips the check when the member ticked in the last " +
			"three heartbeats, which a resumed old leader has just done",
		api: "server lessor and EtcdServer.revokeExpiredLeases",
		what: "a leader stopped past the TTL and resumed revokes every lease it saw expire during the stop, leases " +
			"their clients kept alive through the new leader",
	},
	{
		id: "etcd-13975", url: "https://github.com/etcd-io/etcd/issues/13975",
		also:   []string{"https://github.com/etcd-io/etcd/issues/11123", "https://github.com/etcd-io/etcd/issues/10686"},
		status: "closed",
		note: "closed as stale; in v3.7.3 the lessor retries an expired lease's revoke every 3s, and a revoke as root " +
			"is not refused for an older auth revision",
		api:  "server lessor and EtcdServer.revokeExpiredLeases with auth on (AuthStore.WithRoot)",
		what: "an expired lease whose revoke as root was refused \"invalid auth token\" was never revoked: its keys stayed for good",
	},
	{
		id: "etcd-17502", url: "https://github.com/etcd-io/etcd/issues/17502",
		also:   []string{"https://github.com/etcd-io/etcd/issues/14850"},
		status: "closed",
		note: "closed as stale, unfixed; in v3.7.3 the election service still waits on one watch stream of the " +
			"member's in-process client, shared by every caller",
		api: "server v3election: Campaign with auth on (concurrency.Election on the member's in-process client)",
		what: "a candidate that must wait is refused \"permission denied\" on an election its user was granted: " +
			"its wait runs on the watch stream the first waiter opened, authorized as that waiter's user",
		fix: "campaign with etcd's client-side concurrency.Election on the process's own client (election recipe " +
			"rechecked): every wait is on the caller's own watch stream, authorized as the caller",
	},
	{
		id: "etcd-20418", url: "https://github.com/etcd-io/etcd/issues/20418",
		also:   []string{"https://github.com/etcd-io/etcd/pull/21375", "https://github.com/etcd-io/etcd/pull/21399"},
		status: "closed, fixed",
		note: "fixed in 3.6.9 and backported by etcd PRs #21375 (the read index checked against a leader change) and " +
			"#21399 (a new read index for every retry), both in v3.7.3",
		api:  "server linearizable reads (etcdserver/read: the ReadIndex loop)",
		what: "a member stopped and resumed answered linearizable reads with values older than writes acknowledged before the reads began",
	},
	{
		id: "etcd-16221", url: "https://github.com/etcd-io/etcd/issues/16221",
		status: "closed", note: "the report is closed, but RWMutex.Lock in v3.7.3 still never reads its key after the wait",
		api:  "client/v3/experimental/recipes: RWMutex.Lock",
		what: "a writer whose session's lease ends while it waits in Lock is told it holds the lock, and the next writer takes it too",
		fix:  "after the wait, a linearizable read checks that the caller's key is still there (rwmutex recipe checked)",
	},
	{
		id: "etcd-21638", url: "https://github.com/etcd-io/etcd/issues/21638",
		also:   []string{"https://github.com/etcd-io/etcd/pull/21991"},
		status: "open", note: "documented by etcd PR #21991: answers buffered before a Revoke may still be delivered after it; read until the channel closes",
		api: "client/v3: Lease.KeepAlive",
		what: "answers that waited on a lease's KeepAlive channel are taken after the lease was revoked, each saying the lease " +
			"lives; a holder that takes one as proof writes on a lock whose key is gone",
		fix: "the holder asks with KeepAliveOnce, a request sent when it checks, which after a revoke finds the lease gone",
	},
	{
		id: "etcd-14758", url: "https://github.com/etcd-io/etcd/issues/14758",
		also: []string{"https://github.com/etcd-io/etcd/pull/21389", "https://github.com/etcd-io/etcd/pull/20589",
			"https://github.com/etcd-io/etcd/pull/20590"},
		status: "closed",
		note: "closed: the reporter's keys had been overwritten without keeping their lease; etcd PR #21389, which closes a race between Renew and Revoke " +
			"for it, was closed unmerged; v3.7 turns FastLeaseKeepAlive on by default (etcd PR #20589)",
		api:  "server lessor Renew and Revoke; EtcdServer.LeaseRenew with the FastLeaseKeepAlive feature gate",
		what: "a keep-alive answers that a lease lives after the lease was revoked and its keys deleted",
	},
	{
		id: "etcd-21126", url: "https://github.com/etcd-io/etcd/pull/21126",
		also:   []string{"https://github.com/etcd-io/etcd/issues/7275", "https://github.com/etcd-io/etcd/pull/7630"},
		status: "open", note: "a pull request: clientv3 should stop renewing a lease once every channel of its keep-alive has closed for want of a leader",
		api: "client/v3: Lease.KeepAlive with clientv3.WithRequireLeader",
		what: "a keep-alive under WithRequireLeader whose channel closed when its member lost the leader goes on renewing the " +
			"lease through another member, with no channel left: the lease and its keys outlive the holder's belief",
		fix: "the keep-alive's context is cancelled when its channel closes (as concurrency.Session does), so that clientv3 forgets the lease",
	},
	{
		id: "etcd-16942", url: "https://github.com/etcd-io/etcd/issues/16942",
		also:   []string{"https://github.com/etcd-io/etcd/pull/21960"},
		status: "open", note: "a fix is proposed in etcd PR #21960",
		api: "server v3rpc: LeaseServer.LeaseKeepAlive",
		what: "the goroutines a member starts for a lease keep-alive stream are said to outlive the stream when its client " +
			"disconnects, and to pile up over many disconnections",
	},
	{
		id: "milvus-29345", url: "https://github.com/milvus-io/milvus/issues/29345",
		also: []string{"https://github.com/milvus-io/milvus/pull/29346", "https://github.com/milvus-io/milvus/issues/45303",
			"https://github.com/etcd-io/etcd/issues/9604"},
		status: "open",
		note: "reported against milvus, whose sessions run on etcd's client; the fix proposed there (milvus PR #29346: set " +
			"DialKeepAliveTime and DialKeepAliveTimeout) was closed unmerged and proposed again in milvus #45303; clientv3 " +
			"in v3.7.3 still sends no gRPC pings unless asked",
		api: "client/v3: Lease.KeepAlive under concurrency.Session, with clientv3.Config's default DialKeepAliveTime (0: no gRPC pings)",
		what: "a process whose session's keepalive stream is on a member that goes dark with its connection left open loses its " +
			"session when the TTL runs out, although the other members keep a quorum and answer its other requests",
		fix: "the client's gRPC keepalive on (DialKeepAliveTime 10s, DialKeepAliveTimeout 2s): gRPC closes the dead connection " +
			"after 12s and the keepalive stream moves to a member that stands, well within a 30s TTL",
	},
	{
		id: "etcdsim-barrier-wait", status: "not reported upstream", note: "a finding of etcdsim's own",
		api: "client/v3/experimental/recipes: Barrier.Wait",
		what: "a waiter whose watch resumes, after its connection drops, from a revision etcd has compacted sees " +
			"its watch cancelled, and Wait returns nil with the barrier still held",
		fix: "after the wait, a read checks that the key the wait began on is gone (plain-barrier recipe checked)",
	},
	{
		id: "etcdsim-double-barrier-enter", status: "not reported upstream", note: "a finding of etcdsim's own",
		api: "client/v3/experimental/recipes: DoubleBarrier.Enter",
		what: "a process waiting in Enter whose watch resumes, after its connection drops, from a revision etcd " +
			"has compacted sees its watch cancelled, and Enter returns nil before the count has arrived",
		fix: "after Enter, a read checks that the barrier's ready key is there (double-barrier recipe checked)",
	},
}

// report returns the report called id; an unknown id is a programming
// error.
func report(id string) upstreamReport {
	for _, r := range upstreamReports {
		if r.id == id {
			return r
		}
	}
	panic("scenarios: no upstream report " + id)
}

// etcdVersion is the version of go.etcd.io/etcd/client/v3 this program was
// built with, "" if its build info lists no modules.
var etcdVersion = sync.OnceValue(func() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, d := range bi.Deps {
		if d.Path == "go.etcd.io/etcd/client/v3" {
			if d.Replace != nil {
				return d.Replace.Version
			}
			return d.Version
		}
	}
	return ""
})

// EtcdVersion returns the version of go.etcd.io/etcd/client/v3 the
// running program was built with, from its build info: what the upstream
// scenarios run. It is "" when the program carries no module list, as a
// test binary does; read go.mod then.
func EtcdVersion() string { return etcdVersion() }

// scenario finishes s as a scenario of report id: its name, its
// evidence, and a description that says what it shows, which report, its
// status and the etcd version it was confirmed on.
func (r upstreamReport) scenario(s Scenario, name, shows, desc string) Scenario {
	s.Name = "upstream/" + r.id + "/" + name
	s.Upstream = &Upstream{Report: r.url, Status: r.status + "; " + r.note, API: r.api, Shows: shows,
		ConfirmedOn: ConfirmedOn, Etcd: EtcdVersion(), Command: "go run ./cmd/simrun run " + s.Name}
	if s.Seed == 0 {
		s.Seed = 1
	}
	s.Description = fmt.Sprintf("%s, confirmed on %s: %s", r.heading(), ConfirmedOn, desc)
	return s
}

// heading is how the description of one of r's scenarios begins: "etcd
// #22082, open", "milvus #29345, open", or, for a finding not reported
// upstream, "found by etcdsim, not reported upstream".
func (r upstreamReport) heading() string {
	if r.url == "" {
		return "found by etcdsim, " + r.status
	}
	project, number, _ := strings.Cut(r.id, "-")
	return fmt.Sprintf("%s #%s, %s", project, number, r.status)
}

// upstreamScenarios are the upstream family: per report, its reproduction
// first, then the fix or the control.
func upstreamScenarios() []Scenario {
	var out []Scenario
	out = append(out, upstream22082()...)
	out = append(out, upstream19597()...)
	out = append(out, upstream21128()...)
	out = append(out, upstream22123()...)
	out = append(out, upstream19091()...)
	out = append(out, upstream11456()...)
	out = append(out, upstream11360()...)
	out = append(out, upstream10811()...)
	out = append(out, upstream9395()...)
	out = append(out, upstream15247()...)
	out = append(out, upstream13975()...)
	out = append(out, upstream17502()...)
	out = append(out, upstream20418()...)
	out = append(out, upstream16221()...)
	out = append(out, upstream21638()...)
	out = append(out, upstream14758()...)
	out = append(out, upstream21126()...)
	out = append(out, upstream16942()...)
	out = append(out, upstream29345()...)
	out = append(out, upstreamBarrierWait()...)
	out = append(out, upstreamDoubleBarrierEnter()...)
	return out
}

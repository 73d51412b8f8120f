package checker

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Infinity is the return time of an operation whose outcome is unknown,
// following porcupine's convention: such an operation may take effect at any
// instant after its call, or never. In JSON it is the integer
// 9223372036854775807 (math.MaxInt64 nanoseconds), which encoding/json reads
// back exactly.
const Infinity = time.Duration(math.MaxInt64)

// Kind names what an operation did. The checkers read the kinds below; each
// checker's doc comment lists the kinds and fields it reads. A workload may
// record kinds of its own if their names begin with "x-"; every checker
// ignores those. Any other name makes the history invalid, so that a typo
// ("aquire") cannot silently hide operations from a checker.
type Kind string

// Locks: read by MutualExclusion, Fencing, LockLinearizable and Liveness.
const (
	// KindAcquire: Client acquired lock Key. Output.Token is the fencing
	// token the lock handed out (e.g. the lock key's create revision), 0 if
	// not recorded.
	KindAcquire Kind = "acquire"
	// KindRelease: Client released lock Key. Outcome unknown means the lock
	// may be freed at any later time; failed means it definitely is still
	// held.
	KindRelease Kind = "release"
	// KindLost: the recipe told Client, holding the lock Key since its
	// last acquire, that it may have lost it — its holder's Done closed —
	// at Call: an instant, Outcome ok. It ends no hold: MutualExclusion
	// and Fencing read it only to say, of a holder that went on past its
	// lease, whether its recipe signalled the loss late or never.
	KindLost Kind = "lost"
	// KindGuardedWrite: Client wrote Input.Value to the resource guarded by
	// lock Key, presenting fencing token Input.Token. Outcome ok means the
	// resource accepted the write, failed that it rejected it (stale token).
	KindGuardedWrite Kind = "guarded-write"
	// KindSetAdd: Client added Input.Value to the set guarded by lock Key
	// with a read-modify-write (Jepsen's lock-set).
	KindSetAdd Kind = "set-add"
	// KindSetRead: Client read the set guarded by lock Key: Output.Values.
	KindSetRead Kind = "set-read"
	// KindCounterIncr: Client added one to the counter guarded by lock Key
	// with a read-modify-write.
	KindCounterIncr Kind = "counter-incr"
	// KindCounterRead: Client read the counter guarded by lock Key:
	// Output.Count.
	KindCounterRead Kind = "counter-read"
)

// Elections: read by ElectionSafety and Liveness.
const (
	// KindCampaign: Client became leader of election Key, proposing
	// Input.Value. Output.Token is its term: the leader key's create
	// revision, 0 if not recorded.
	KindCampaign Kind = "campaign"
	// KindResign: Client stopped leading election Key (outcomes as for
	// KindRelease).
	KindResign Kind = "resign"
	// KindLeaderObserved: Client (an observer) saw the leader of election
	// Key: Output.Value is the leader's proposal and Output.Token its term;
	// Output.Missing means no leader.
	KindLeaderObserved Kind = "leader-observed"
)

// Registers and key-value stores: read by RegisterLinearizable; committed
// writes are also read by WatchGuarantees.
const (
	// KindRead: Client read Key: Output.Value, or Output.Missing when the
	// key did not exist; Output.Revision is the value's mod revision, 0 if
	// not recorded.
	KindRead Kind = "read"
	// KindWrite: Client wrote Input.Value to Key; Output.Revision is the
	// revision the write committed at, 0 if not recorded.
	KindWrite Kind = "write"
	// KindCAS: Client set Key to Input.Value if it held Input.Expect (or, if
	// Input.ExpectMissing, if it did not exist). Outcome ok with
	// Output.Succeeded false means the comparison failed: that is an
	// observation, not a failure. Outcome failed means the request
	// definitely did not take effect.
	KindCAS Kind = "cas"
	// KindDelete: Client deleted Key; Output.Revision as for KindWrite.
	KindDelete Kind = "delete"
)

// Transactions: read by BankTotal and Serializable (see txn.go).
const (
	// KindTxn: Client ran a multi-key transaction: Input.Writes are the
	// keys and values it asked to write; Output.Reads the keys it read,
	// each with the value (or missing) and mod revision it saw;
	// Output.Succeeded that it committed; Output.Revision the revision
	// it committed at.
	KindTxn Kind = "txn"
)

// Service discovery: read by DiscoveryConvergence.
const (
	// KindRegister: Client (a backend) registered endpoint Input.Value
	// under service Key; Output.Key is the etcd key it wrote, "" if not
	// recorded (LeftBehind reads it).
	KindRegister Kind = "register"
	// KindDeregister: Client removed endpoint Input.Value from service Key.
	KindDeregister Kind = "deregister"
	// KindResolve: Client (a resolver) reported its current endpoint set
	// for service Key: Output.Endpoints.
	KindResolve Kind = "resolve"
	// KindRPC: Client sent an RPC for service Key to endpoint Input.Value.
	KindRPC Kind = "rpc"
)

// Watches: read by WatchGuarantees.
const (
	// KindWatch: one watch stream of Client over prefix Key, from its call
	// to the channel closing, starting at revision Input.Revision (0: from
	// now). Output.CompactRevision > 0 means the stream was cancelled with
	// ErrCompacted.
	KindWatch Kind = "watch"
	// KindWatchEvent: Client's watch on prefix Key delivered an event for
	// Output.Key at Output.Revision (its mod revision).
	KindWatchEvent Kind = "watch-event"
	// KindList: Client listed prefix Key; Output.Revision is the revision
	// the listing was read at (the response header's revision), and
	// Output.Values the keys it found, when recorded (LeftBehind reads
	// them).
	KindList Kind = "list"
)

// Read-write locks: read by RWExclusion and Liveness. A writer's hold is
// an acquire and a release of the lock Key, as for a lock; a reader's is
// the pair below.
const (
	// KindRLock: Client took read lock Key. Output.Token and Output.Lease
	// as for KindAcquire.
	KindRLock Kind = "rlock"
	// KindRUnlock: Client gave read lock Key back (outcomes as for
	// KindRelease).
	KindRUnlock Kind = "runlock"
)

// Queues: read by QueueDelivery.
const (
	// KindEnqueue: Client put item Input.Value on queue Key. Items are
	// unique within a history. Input.Priority is the item's priority on a
	// priority queue, lower served first (0 on a FIFO queue).
	KindEnqueue Kind = "enqueue"
	// KindDequeue: Client took item Output.Value off queue Key; or, with
	// Output.Empty, read that the queue held no item at all (a drain's
	// last look).
	KindDequeue Kind = "dequeue"
)

// Double barriers: read by BarrierSafety.
const (
	// KindEnter: Client entered double barrier Key, declaring the
	// barrier's count in Input.Token; Input.Value may name the round, for
	// reports. Failed means it was turned away and left nothing behind.
	KindEnter Kind = "enter"
	// KindLeave: Client left double barrier Key (Input.Value as for
	// KindEnter).
	KindLeave Kind = "leave"
)

// Plain barriers (etcd's Barrier): read by BarrierSafety.
const (
	// KindHold: Client put plain barrier Key up (Barrier.Hold). Failed
	// means the barrier was up already and the hold changed nothing.
	KindHold Kind = "hold"
	// KindLift: Client took plain barrier Key down (Barrier.Release).
	KindLift Kind = "lift"
	// KindWait: Client waited at plain barrier Key until it was down
	// (Barrier.Wait). Ok means the wait let the client through.
	KindWait Kind = "wait"
)

// KindSession: Client opened the session its later operations wait and
// hold on: Output.Lease is its lease. Record it ok, as an instant. Only
// the faults read it, so that a fault aimed at a client's session finds
// the lease while the client still waits.
const KindSession Kind = "session"

// Leases: read by RevokedLease.
const (
	// KindKeepAlive: Client took an answer to a keep-alive of lease
	// Output.Lease — off clientv3's KeepAlive channel, or from a
	// KeepAliveOnce — between Call and Return, and judged by it whether it
	// still holds what the lease stands for. Output.TTL is the TTL the
	// answer carried, 0 when it said the lease is gone (or the channel
	// closed); Output.Header is the revision in the answer's header, 0 if
	// not recorded. Record it ok; failed when no answer came.
	KindKeepAlive Kind = "keepalive"
	// KindRevoke: Client revoked lease Output.Lease; Output.Revision is the
	// revision in the revoke's response header, 0 if not recorded. Ok means
	// the lease was gone from the cluster when the call returned.
	KindRevoke Kind = "revoke"
	// KindLeaseGrant: Client's connection was granted lease Output.Lease
	// with TTL Output.TTL. Recorded from the
	// client side, whatever code made the call (the recipe, its library),
	// so a judge reads the TTL the recipe used rather than the one the
	// scenario assumed. Outcome as for any call.
	KindLeaseGrant Kind = "lease-grant"
	// KindPut: Client's connection wrote etcd key Key — a Put, or a put in
	// the branch of a Txn that ran — on lease Output.Lease (0: on no
	// lease); Output.Revision is the revision it committed at, 0 if not
	// recorded. A put in the branch of a Txn that did not run is failed.
	// Recorded from the client side, as KindLeaseGrant. Read by
	// KeysOnLeases.
	KindPut Kind = "put"
	// KindMemberSample: the harness sampled, at an instant, what etcd
	// member Client runs for lease keep-alive streams; Output.Values are
	// its figures, each "name=value": streams (keep-alive streams open),
	// loops (goroutines in the receive loop a stream's handler starts)
	// and heap (the bytes in use on the process's heap, which every
	// in-process member shares). A figure left out is not known. Read by
	// MemberResources.
	KindMemberSample Kind = "member-sample"
	// KindDeleteRange: Client's connection deleted etcd key Key — a
	// DeleteRange, or one in the branch of a Txn that ran — and, when
	// Input.Value is set, every key from Key up to it (etcd's range end;
	// "\x00": every key from Key on); Output.Count is how many keys it
	// deleted, Output.Revision the revision it committed at (0 if not
	// recorded). Recorded from the client side, as KindPut. Read by
	// Liveness, to tell a take that cleaned up after itself from one that
	// left its key behind.
	KindDeleteRange Kind = "delete-range"
)

// CallKinds are the kinds a client's connection records whatever code made
// the call (KindLeaseGrant, KindRevoke, KindPut, KindDeleteRange). A
// Recorder keeps them in History.Calls, apart from the operations the
// workload records, so that a judge that does not read them does not walk
// them.
func CallKinds() []Kind { return slices.Clone(callKinds) }

var callKinds = []Kind{KindLeaseGrant, KindRevoke, KindPut, KindDeleteRange}

// IsCall reports whether k is one of CallKinds, kept in History.Calls.
func (k Kind) IsCall() bool {
	return k == KindLeaseGrant || k == KindRevoke || k == KindPut || k == KindDeleteRange
}

// KindCrash: Client crashed (or lost its session for good) at Call. Every
// lock it held and every election it led is freed at some unknown later
// time, at the latest when its lease expires; every endpoint it registered
// goes away within the session TTL. Record it with Outcome ok.
const KindCrash Kind = "crash"

// knownKinds are the kinds the checkers understand.
var knownKinds = func() map[Kind]bool {
	m := make(map[Kind]bool)
	for _, k := range Kinds() {
		m[k] = true
	}
	return m
}()

// Kinds returns every kind the checkers read, in the order this file
// documents them.
func Kinds() []Kind {
	return []Kind{
		KindAcquire, KindRelease, KindLost, KindGuardedWrite, KindSetAdd, KindSetRead, KindCounterIncr, KindCounterRead,
		KindCampaign, KindResign, KindLeaderObserved,
		KindRead, KindWrite, KindCAS, KindDelete,
		KindTxn,
		KindRegister, KindDeregister, KindResolve, KindRPC,
		KindWatch, KindWatchEvent, KindList,
		KindRLock, KindRUnlock, KindSession, KindEnqueue, KindDequeue,
		KindEnter, KindLeave,
		KindHold, KindLift, KindWait,
		KindKeepAlive, KindRevoke, KindLeaseGrant, KindPut, KindDeleteRange, KindMemberSample,
		KindCrash,
	}
}

// Known reports whether k is a kind the checkers read or a custom "x-" kind.
func (k Kind) Known() bool { return knownKinds[k] || strings.HasPrefix(string(k), "x-") }

// Outcome says how an operation ended.
type Outcome string

const (
	// OutcomeOK: the operation took effect and its output is what it saw.
	OutcomeOK Outcome = "ok"
	// OutcomeFailed: the operation definitely did not take effect.
	OutcomeFailed Outcome = "failed"
	// OutcomeUnknown: the client stopped waiting (timeout, lost connection,
	// crash); the operation may have taken effect at any later instant, or
	// never. Its Return is Infinity. It is never counted as failed or as
	// succeeded.
	OutcomeUnknown Outcome = "unknown"
)

// Input is what an operation asked for. Which fields matter depends on the
// Kind; unused fields stay zero.
// ResignAsked is the Input.Value of a resign the workload asked for — its
// term was over, or the run was — as opposed to one recorded because the
// recipe's Done closed: a leader that went on past its lease and then
// resigned so was never told by its recipe that it had lost the lease.
const ResignAsked = "asked"

// ReleaseDoneOpen is the Input.Value of a release the workload made while
// its holder's Done was still open: had the holder gone on past its lease,
// its recipe never told it so. A workload that records it records each
// Done that closes during a hold (KindLost) too.
const ReleaseDoneOpen = "done-open"

type Input struct {
	// Value: the value written (write, cas, guarded-write), the element
	// added (set-add), the proposal (campaign), the endpoint (register,
	// deregister, rpc).
	Value string `json:"value,omitempty"`
	// Expect: the value a cas compares against.
	Expect string `json:"expect,omitempty"`
	// ExpectMissing: the cas compares against "key does not exist".
	ExpectMissing bool `json:"expect_missing,omitempty"`
	// Token: the fencing token a guarded-write presents; the count an
	// enter declares.
	Token int64 `json:"token,omitempty"`
	// Priority: an enqueued item's priority, lower served first (enqueue
	// on a priority queue; 0 on a FIFO queue).
	Priority int64 `json:"priority,omitempty"`
	// Revision: the revision a watch starts at (0: from now).
	Revision int64 `json:"revision,omitempty"`
	// Writes: the keys and values a transaction writes (txn).
	Writes []KeyValue `json:"writes,omitempty"`
}

// Output is what an operation returned. Which fields matter depends on the
// Kind; unused fields stay zero.
type Output struct {
	// Value: the value read (read), the leader's proposal
	// (leader-observed), the event's value (watch-event).
	Value string `json:"value,omitempty"`
	// Missing: the key did not exist (read) or there was no leader
	// (leader-observed).
	Missing bool `json:"missing,omitempty"`
	// Empty: the queue held no item at all (dequeue).
	Empty bool `json:"empty,omitempty"`
	// Succeeded: a cas's comparison held and the value was swapped.
	Succeeded bool `json:"succeeded,omitempty"`
	// Values: the elements of a set (set-read); the keys a listing found
	// (list), when it recorded them.
	Values []string `json:"values,omitempty"`
	// Count: the value of a counter (counter-read); how many keys a
	// delete-range deleted.
	Count int64 `json:"count,omitempty"`
	// Token: the fencing token handed out (acquire) or the term, i.e. the
	// leader key's create revision (campaign, leader-observed).
	Token int64 `json:"token,omitempty"`
	// Revision: an etcd revision: the mod revision of the value read
	// (read), the revision a change committed at (write, cas, delete), the
	// event's mod revision (watch-event), the listing's header revision
	// (list).
	Revision int64 `json:"revision,omitempty"`
	// Header: the revision in the response's header (read): the store
	// revision of the member that answered, which a serializable read may
	// take from a member that lags; 0 if not recorded. Read by
	// MonotonicReads.
	Header int64 `json:"header,omitempty"`
	// CompactRevision: a watch was cancelled because the revision it asked
	// for had been compacted (etcd's ErrCompacted); the compact revision.
	CompactRevision int64 `json:"compact_revision,omitempty"`
	// Key: the key a watch event is about; the etcd key a registration
	// was written under (register), "" if not recorded.
	Key string `json:"key,omitempty"`
	// Endpoints: a resolver's endpoint set (resolve).
	Endpoints []string `json:"endpoints,omitempty"`
	// Reads: what a transaction read (txn): each key's value or
	// missing, and its mod revision.
	Reads []KeyValue `json:"reads,omitempty"`
	// Lease: the etcd lease the client's key is attached to (acquire,
	// campaign, register, put), 0 if not recorded (a put: on no lease);
	// the lease granted (lease-grant) or revoked (revoke). Faults aimed at a client's
	// session lease read the lease of its latest such operation.
	Lease int64 `json:"lease,omitempty"`
	// TTL: the time to live a keep-alive answer gave the lease
	// (keepalive), 0 meaning it said the lease is gone; the TTL a lease
	// grant was given (lease-grant).
	TTL time.Duration `json:"ttl,omitempty"`
}

// Operation is one call a client made and what came of it. Times are on the
// run's Clock. See Kind for what each kind records.
type Operation struct {
	// ID identifies the operation within its history.
	ID int `json:"id"`
	// Run is the RunID of the history the operation was recorded in. Every
	// operation of a valid history carries its history's RunID.
	Run string `json:"run,omitempty"`
	// Client names the process that made the call ("c1", "resolver-2").
	Client string `json:"client"`
	Kind   Kind   `json:"kind"`
	// Key is the lock name, election name, register key, service name or
	// watched prefix the operation was about.
	Key    string `json:"key,omitempty"`
	Input  Input  `json:"input,omitzero"`
	Output Output `json:"output,omitzero"`
	// Call and Return are when the call was made and when it returned.
	// Return is Infinity when the outcome is unknown.
	Call   time.Duration `json:"call"`
	Return time.Duration `json:"return"`
	// GaveUp is when the client stopped waiting for an operation whose
	// outcome is unknown (0 if not recorded). Only reports and Liveness
	// read it; for every other purpose the operation returns at Infinity.
	GaveUp  time.Duration `json:"gave_up,omitempty"`
	Outcome Outcome       `json:"outcome"`
	// Error is the error the client saw, if any.
	Error string `json:"error,omitempty"`
}

// End is when the operation returned for the purpose of checking: Return,
// or Infinity when the outcome is unknown.
func (op *Operation) End() time.Duration {
	if op.Outcome == OutcomeUnknown {
		return Infinity
	}
	return op.Return
}

// String describes the operation in one line, e.g.
// "op 12 (c2 acquire /jobs [3.412s, 3.500s] ok)".
func (op Operation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "op %d (%s %s", op.ID, op.Client, op.Kind)
	if op.Key != "" {
		fmt.Fprintf(&b, " %s", op.Key)
	}
	if in := op.Input.describe(); in != "" {
		b.WriteString(" " + in)
	}
	if out := op.Output.describe(); out != "" {
		b.WriteString(" → " + out)
	}
	fmt.Fprintf(&b, " [%s, %s] %s", fmtTime(op.Call), fmtTime(op.End()), op.Outcome)
	if op.Error != "" {
		fmt.Fprintf(&b, ": %s", op.Error)
	}
	b.WriteString(")")
	return b.String()
}

// describe lists the input's non-zero fields, e.g. `value="1" token=7`.
func (in Input) describe() string {
	var f []string
	if in.Value != "" {
		f = append(f, fmt.Sprintf("value=%q", in.Value))
	}
	if in.Expect != "" {
		f = append(f, fmt.Sprintf("expect=%q", in.Expect))
	}
	if in.ExpectMissing {
		f = append(f, "expect=missing")
	}
	if in.Token != 0 {
		f = append(f, fmt.Sprintf("token=%d", in.Token))
	}
	if in.Priority != 0 {
		f = append(f, fmt.Sprintf("priority=%d", in.Priority))
	}
	if in.Revision != 0 {
		f = append(f, fmt.Sprintf("revision=%d", in.Revision))
	}
	if in.Writes != nil {
		f = append(f, "writes="+describeKVs(in.Writes))
	}

	return strings.Join(f, " ")
}

// describe lists the output's non-zero fields; long lists are shortened.
func (out Output) describe() string {
	var f []string
	if out.Key != "" {
		f = append(f, fmt.Sprintf("key=%q", out.Key))
	}
	if out.Value != "" {
		f = append(f, fmt.Sprintf("value=%q", out.Value))
	}
	if out.Missing {
		f = append(f, "missing")
	}
	if out.Empty {
		f = append(f, "empty")
	}
	if out.Succeeded {
		f = append(f, "succeeded")
	}
	if out.Values != nil {
		f = append(f, "values="+shortList(out.Values))
	}
	if out.Count != 0 {
		f = append(f, fmt.Sprintf("count=%d", out.Count))
	}
	if out.Token != 0 {
		f = append(f, fmt.Sprintf("token=%d", out.Token))
	}
	if out.Revision != 0 {
		f = append(f, fmt.Sprintf("revision=%d", out.Revision))
	}
	if out.Header != 0 {
		f = append(f, fmt.Sprintf("header=%d", out.Header))
	}
	if out.CompactRevision != 0 {
		f = append(f, fmt.Sprintf("compacted=%d", out.CompactRevision))
	}
	if out.Endpoints != nil {
		f = append(f, "endpoints="+shortList(out.Endpoints))
	}
	if out.Reads != nil {
		f = append(f, "reads="+describeKVs(out.Reads))
	}
	if out.Lease != 0 {
		f = append(f, fmt.Sprintf("lease=%x", out.Lease))
	}
	if out.TTL != 0 {
		f = append(f, fmt.Sprintf("ttl=%v", out.TTL))
	}
	return strings.Join(f, " ")
}

// shortList renders up to 8 elements of l.
func shortList(l []string) string {
	if len(l) <= 8 {
		return "[" + strings.Join(l, " ") + "]"
	}
	return fmt.Sprintf("[%s ... (%d in all)]", strings.Join(l[:8], " "), len(l))
}

// fmtTime renders a time on the run clock as seconds with millisecond
// precision ("3.412s"), and Infinity as "+inf".
func fmtTime(d time.Duration) string {
	if d >= Infinity {
		return "+inf"
	}
	return fmt.Sprintf("%.3fs", d.Seconds())
}

// addTime adds d to t, saturating at Infinity.
func addTime(t, d time.Duration) time.Duration {
	if t >= Infinity || d >= Infinity || t > Infinity-d {
		return Infinity
	}
	return t + d
}

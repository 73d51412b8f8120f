package checker

// ViolationKind names what a Violation found, in a word or two that stay
// the same from run to run, so that a scenario can say which violation it
// expects and a report can group findings. Each kind belongs to the checker
// that reports it.
type ViolationKind string

// Reported by MutualExclusion.
const (
	// ViolationOverlap: two clients held the lock at once (RWExclusion:
	// a writer and another writer or a reader).
	ViolationOverlap ViolationKind = "overlap"
	// ViolationUnguardedWrite: the guarded resource accepted a write from
	// a client that did not hold the lock.
	ViolationUnguardedWrite ViolationKind = "unguarded-write"
	// ViolationStaleWrite: the guarded resource accepted a write from a
	// holder after another client had acquired the lock — for a write with
	// a fencing token, after the resource had seen a higher token.
	ViolationStaleWrite ViolationKind = "stale-write"
	// ViolationLostUpdate: a read of the guarded set or counter lacks an
	// update that had completed before it.
	ViolationLostUpdate ViolationKind = "lost-update"
	// ViolationPhantomUpdate: a read of the guarded set or counter shows an
	// update nobody could have made by then.
	ViolationPhantomUpdate ViolationKind = "phantom-update"
)

// Reported by Fencing.
const (
	// ViolationTokenRegression: a lock handed out a fencing token no
	// larger than one it had handed out before.
	ViolationTokenRegression ViolationKind = "token-regression"
	// ViolationStaleAccepted: the resource accepted a write whose token
	// was older than one it had already accepted.
	ViolationStaleAccepted ViolationKind = "stale-accepted"
)

// Reported by LockLinearizable and RegisterLinearizable.
const (
	// ViolationNotLinearizable: no order of a lock's (register's)
	// operations explains what the clients saw.
	ViolationNotLinearizable ViolationKind = "not-linearizable"
)

// Reported by ElectionSafety.
const (
	// ViolationTwoLeaders: two clients led an election at once.
	ViolationTwoLeaders ViolationKind = "two-leaders"
	// ViolationTermRegression: a leader won with a term no larger than an
	// earlier leader's.
	ViolationTermRegression ViolationKind = "term-regression"
	// ViolationObserverRegression: an observer saw an election's term go
	// backwards.
	ViolationObserverRegression ViolationKind = "observer-regression"
	// ViolationLeaderMismatch: an observer saw a term led by a proposal
	// other than the one that won it.
	ViolationLeaderMismatch ViolationKind = "leader-mismatch"
)

// Reported by Liveness.
const (
	// ViolationStarvation: after the last heal, a lock stayed free for
	// longer than the bound while a client waited for it.
	ViolationStarvation ViolationKind = "starvation"
	// ViolationLeaderless: after the last heal, an election stayed without
	// a leader for longer than the bound while a client campaigned.
	ViolationLeaderless ViolationKind = "leaderless"
)

// Reported by DiscoveryConvergence.
const (
	// ViolationNotConverged: a resolver still reported a set other than
	// the registered one when the registry had been stable for the bound.
	ViolationNotConverged ViolationKind = "not-converged"
)

// Reported by WatchGuarantees.
const (
	// ViolationMissedEvent: a stream never delivered a committed change it
	// should have.
	ViolationMissedEvent ViolationKind = "missed-event"
	// ViolationDuplicateEvent: a watcher received the same event twice.
	ViolationDuplicateEvent ViolationKind = "duplicate-event"
	// ViolationRevisionRegression: a watcher received a revision below one
	// it had received before.
	ViolationRevisionRegression ViolationKind = "revision-regression"
	// ViolationResumeGap: a watcher resumed from a revision past the ones
	// it had seen, skipping committed changes.
	ViolationResumeGap ViolationKind = "resume-gap"
	// ViolationNoRelist: a watcher watched again after ErrCompacted
	// without listing first.
	ViolationNoRelist ViolationKind = "no-relist"
)

// Reported by QueueDelivery.
const (
	// ViolationPhantomItem: a dequeue returned an item nobody had begun
	// to enqueue by then.
	ViolationPhantomItem ViolationKind = "phantom-item"
	// ViolationDuplicateItem: an item was dequeued twice.
	ViolationDuplicateItem ViolationKind = "duplicate-item"
	// ViolationLostItem: an item enqueued was never delivered to a
	// consumer although the queue was seen empty after its enqueue
	// returned.
	ViolationLostItem ViolationKind = "lost-item"
	// ViolationPriorityInversion: a dequeue of a priority queue returned
	// an item while one of a strictly higher priority waited throughout.
	ViolationPriorityInversion ViolationKind = "priority-inversion"
)

// Reported by BarrierSafety.
const (
	// ViolationEarlyPass: a client passed a double barrier's Enter before
	// its count had arrived, or its Leave before everyone inside had
	// begun to leave; or a plain barrier's Wait while it was held
	// throughout.
	ViolationEarlyPass ViolationKind = "early-pass"
	// ViolationStuckWait: after the last heal, a client went on waiting
	// for longer than the bound at a barrier that should have let it
	// through: a plain barrier that was down, a double barrier whose
	// count had all arrived.
	ViolationStuckWait ViolationKind = "stuck-wait"
)

// Reported by BankTotal.
const (
	// ViolationTotalChanged: an audit found the accounts to sum to other
	// than the total: money was made or lost.
	ViolationTotalChanged ViolationKind = "total-changed"
)

// Reported by Serializable.
const (
	// ViolationNotSerializable: the committed transactions' reads and
	// writes form a dependency cycle, or a read saw a write no committed
	// transaction made: no serial order explains them.
	ViolationNotSerializable ViolationKind = "not-serializable"
)

// Reported by MonotonicReads.
const (
	// ViolationRevisionBackwards: a client's read answered at a revision
	// below that of an earlier read of the same client.
	ViolationRevisionBackwards ViolationKind = "revision-backwards"
)

// Reported by RevokedLease.
const (
	// ViolationActedAfterRevoke: a client took a keep-alive answer saying
	// its lease was alive after a revoke of the lease had returned, and
	// acted on it.
	ViolationActedAfterRevoke ViolationKind = "acted-after-revoke"
)

// Reported by LeftBehind.
const (
	// ViolationLeftBehind: a key stayed in the registry well past the TTL
	// after its registrar had stopped keeping it (registered under another
	// key, deregistered or crashed).
	ViolationLeftBehind ViolationKind = "left-behind"
)

// Reported by KeysOnLeases.
const (
	// ViolationKeyOnNoLease: the recipe wrote a key on no lease, which
	// stays in etcd until someone deletes it.
	ViolationKeyOnNoLease ViolationKind = "key-on-no-lease"
	// ViolationKeyOnDeadLease: a write on a lease returned ok after the
	// lease had been revoked.
	ViolationKeyOnDeadLease ViolationKind = "key-on-dead-lease"
	// ViolationKeyOutlivedWriter: a key stayed in etcd on its lease well
	// past the TTL after the process that wrote it had ended.
	ViolationKeyOutlivedWriter ViolationKind = "key-outlived-writer"
)

// Reported by SessionKept.
const (
	// ViolationLostWithQuorum: a process lost its session while it was
	// alive, no fault was aimed at it, and a quorum of the members it
	// talks to stood: the lease lapsed on the client's side.
	ViolationLostWithQuorum ViolationKind = "lost-with-quorum"
)

// Reported by PermissionHeld.
const (
	// ViolationRefusedHeldPermission: etcd refused a client's call
	// "permission denied" although the client's user was granted every
	// key the call needs.
	ViolationRefusedHeldPermission ViolationKind = "refused-held-permission"
)

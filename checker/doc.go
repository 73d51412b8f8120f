// Package checker records what a chaos run did and judges it.
//
// A run records a History: typed operations (a client, a Kind, a key, an
// Input, an Output, call and return times on the run's Clock, and an Outcome
// of ok, failed or unknown), the faults injected, and the run's RunID and
// seed. An operation whose outcome is unknown (a timeout, a lost connection)
// returns at Infinity, as porcupine has it: it may have taken effect at any
// instant after its call, or never, and it is counted neither as failed nor
// as succeeded. Histories serialize to versioned JSON and back.
//
// The checkers are pure functions of a history. Each returns a Result with a
// Verdict (ok, violation, unknown, invalid), the violations with the
// operations that prove them and a sentence a person can read, and metrics
// for reports. Each is a judge of Judges, the one table that names them, the
// operation kinds they read and the violations they report, and runs them
// by name (RunJudge) as a scenario does:
//
//   - MutualExclusion (mutual-exclusion): lock holds never overlap; the
//     guarded resource accepts writes only from the holder; no lost updates
//     (Jepsen's lock-set, or a counter).
//   - Fencing (fencing): accepted fencing tokens increase; stale writes are
//     rejected and counted.
//   - LockLinearizable (lock-linearizable): the lock operations against a
//     mutex model, with porcupine's search, per lock name.
//   - RegisterLinearizable (register-linearizable): reads, writes,
//     compare-and-sets and deletes against a register per key, with
//     porcupine's search, using etcd revisions where recorded.
//   - ElectionSafety (election-safety): at most one leader at a time; terms
//     increase; no observer sees them go backwards.
//   - Liveness (liveness): after the last heal, waiting clients get the lock
//     and some candidate leads, within a bound.
//   - DiscoveryConvergence (discovery-convergence): resolvers converge on
//     the live registered endpoints within a bound; staleness; RPCs sent to
//     dead backends.
//   - WatchGuarantees (watch-guarantees): watch events in order, without
//     duplicates or gaps; re-listing after ErrCompacted.
//   - RWExclusion (rw-exclusion): a read-write lock's writer shares its hold
//     with nobody; readers share theirs.
//   - QueueDelivery (queue-delivery): every item dequeued was enqueued, none
//     twice, none lost once a drain saw the queue empty; higher priorities
//     served first.
//   - BarrierSafety (barrier-safety): nobody passes a double barrier before
//     its count arrived, or a plain barrier while it is held; nobody stays
//     stuck at one that should have let them through.
//   - BankTotal (bank-total): every audit of the accounts, a transaction
//     that read them all, finds the total unchanged.
//   - Serializable (serializable): the committed transactions' reads and
//     writes have a serial order (no G0, G1 or G2 cycle, no aborted read).
//   - MonotonicReads (monotonic-reads): a client's reads never answer at a
//     revision below an earlier read's.
//   - RevokedLease (revoked-lease): no client acts on a keep-alive answer
//     it took after its lease had been revoked.
//   - LeftBehind (left-behind): no registration stays in the registry
//     under a key its registrar no longer keeps.
//   - SessionKept (session-kept): no process loses its session while it is
//     alive and a quorum of the members it talks to stands.
//   - PermissionHeld (permission-held): with auth on, etcd refuses no
//     client's call "permission denied" for keys its user was granted.
//   - KeysOnLeases (keys-on-leases): every key the recipe writes is on a
//     live lease, and goes when the process that kept the lease is gone.
//   - MemberResources (member-resources): once clients are gone, no member
//     runs more lease keep-alive loops than it has streams open, beyond a
//     slack.
//
// Each checker's doc comment lists the operation kinds and fields it reads.
//
// A sentence explains as well as it finds. When the faults prove that a
// holder's session lease was gone on the server before the holder acted
// (MutualExclusion's doc comment says when they do), an overlap, two-leaders or stale-write sentence says by
// how much the holder outlived it and what would have stopped it; a
// liveness sentence names what held the lock or the leadership during the
// wait. docs/flagged.md lists these sentences with the weakness each shows.
// A history a checker cannot judge (a return before its call, an operation
// without a client, a release with no acquire, two runs mixed) gets the
// verdict invalid, naming the first offending operation; a search that runs
// out of time gets unknown. Neither is ever reported as ok.
//
// Usage:
//
//	clock := checker.NewClock()
//	rec := checker.NewRecorder(clock)
//	// ... hand rec.AddFault to the fault scheduler, then in each client:
//	p := rec.Invoke(ctx, "c1", checker.KindAcquire, "/jobs", checker.Input{})
//	if err := mu.Lock(ctx); err != nil {
//		p.Unknown(ctx, err) // a Lock that timed out may still have taken the lock
//	} else {
//		p.OK(ctx, checker.Output{Token: rev}) // rev: the lock key's create revision
//	}
//	// ... after the run:
//	h := rec.History()
//	res := checker.Combine("locks",
//		checker.MutualExclusion(h, checker.MutexOptions{}),
//		checker.LockLinearizable(h, checker.LinOptions{}).Result,
//	)
//	if err := res.Err(); err != nil {
//		// res.Violations (per part) name the operations that prove it.
//	}
package checker

package checker

import (
	"testing"
	"time"
)

// TestViolationKinds pins each finding to its kind: one small history per
// kind, whose every violation must be of that kind.
func TestViolationKinds(t *testing.T) {
	mutex := func(h History) Result { return MutualExclusion(h, MutexOptions{}) }
	fencing := func(h History) Result { return Fencing(h, FencingOptions{}) }
	election := func(h History) Result { return ElectionSafety(h, ElectionOptions{}) }
	liveness := func(h History) Result {
		return Liveness(h, LivenessOptions{TTL: time.Second, Bound: 3 * time.Second})
	}
	watch := func(h History) Result { return WatchGuarantees(h, WatchOptions{}) }
	heal := healed("partition(leader)", 5, 10)
	tests := []struct {
		name  string
		check func(History) Result
		h     History
		want  ViolationKind
	}{
		{
			name:  "two holders",
			check: mutex,
			h: hist(
				mk("c1", KindAcquire, "/jobs", 0, 1),
				mk("c2", KindAcquire, "/jobs", 0.5, 2),
			),
			want: ViolationOverlap,
		},
		{
			name:  "a write from a client that held nothing",
			check: mutex,
			h: hist(
				mk("c1", KindAcquire, "/jobs", 0, 1),
				mk("c3", KindGuardedWrite, "/jobs", 1.5, 1.6, value("x")),
			),
			want: ViolationUnguardedWrite,
		},
		{
			name:  "a superseded holder's write",
			check: func(h History) Result { return MutualExclusion(h, MutexOptions{ResourceOnly: true}) },
			h: hist(
				mk("c1", KindAcquire, "/jobs", 0, 1),
				mk("c2", KindAcquire, "/jobs", 1.5, 4),
				mk("c1", KindGuardedWrite, "/jobs", 5, 5.1, value("a")),
			),
			want: ViolationStaleWrite,
		},
		{
			name:  "a set lost an add",
			check: mutex,
			h: hist(
				mk("c1", KindSetAdd, "/set", 0, 1, value("1")),
				mk("c1", KindSetRead, "/set", 3, 4, withOut(Output{Values: []string{}})),
			),
			want: ViolationLostUpdate,
		},
		{
			name:  "a counter lost an increment",
			check: mutex,
			h: hist(
				mk("c1", KindCounterIncr, "/n", 0, 1),
				mk("c1", KindCounterRead, "/n", 3, 3.5, withOut(Output{Count: 0})),
			),
			want: ViolationLostUpdate,
		},
		{
			name:  "a set element nobody added",
			check: mutex,
			h: hist(
				mk("c1", KindSetRead, "/set", 3, 4, withOut(Output{Values: []string{"2"}})),
			),
			want: ViolationPhantomUpdate,
		},
		{
			name:  "a counter above its increments",
			check: mutex,
			h: hist(
				mk("c1", KindCounterIncr, "/n", 0, 1),
				mk("c1", KindCounterRead, "/n", 3, 3.5, withOut(Output{Count: 2})),
			),
			want: ViolationPhantomUpdate,
		},
		{
			name:  "a smaller token handed out later",
			check: fencing,
			h: hist(
				mk("c1", KindAcquire, "/jobs", 0, 1, granted(12)),
				mk("c1", KindRelease, "/jobs", 1, 2),
				mk("c2", KindAcquire, "/jobs", 3, 4, granted(9)),
				mk("c2", KindGuardedWrite, "/jobs", 5, 6, token(9)),
			),
			want: ViolationTokenRegression,
		},
		{
			name:  "a stale token accepted",
			check: fencing,
			h: hist(
				mk("c2", KindGuardedWrite, "/jobs", 5, 6, token(12)),
				mk("c1", KindGuardedWrite, "/jobs", 7, 8, token(10)),
			),
			want: ViolationStaleAccepted,
		},
		{
			name:  "a lock not linearizable",
			check: func(h History) Result { return LockLinearizable(h, LinOptions{}).Result },
			h: hist(
				mk("c1", KindAcquire, "/jobs", 0, 1),
				mk("c2", KindAcquire, "/jobs", 3, 4),
			),
			want: ViolationNotLinearizable,
		},
		{
			name:  "a register not linearizable",
			check: func(h History) Result { return RegisterLinearizable(h, LinOptions{}).Result },
			h: hist(
				mk("c1", KindWrite, "x", 0, 1, value("1")),
				mk("c2", KindRead, "x", 2, 3, read("2")),
			),
			want: ViolationNotLinearizable,
		},
		{
			name:  "two leaders",
			check: election,
			h: hist(
				mk("c1", KindCampaign, "/e", 0, 1, term(5)),
				mk("c2", KindCampaign, "/e", 0.5, 3, term(8)),
			),
			want: ViolationTwoLeaders,
		},
		{
			name:  "a later leader with a smaller term",
			check: election,
			h: hist(
				mk("c1", KindCampaign, "/e", 0, 1, term(8)),
				mk("c1", KindResign, "/e", 2, 2.1),
				mk("c2", KindCampaign, "/e", 0.5, 3, term(5)),
			),
			want: ViolationTermRegression,
		},
		{
			name:  "an observer's term went back",
			check: election,
			h: hist(
				mk("o1", KindLeaderObserved, "/e", 1, 1.1, observed("", 8)),
				mk("o1", KindLeaderObserved, "/e", 2, 2.1, observed("", 5)),
			),
			want: ViolationObserverRegression,
		},
		{
			name:  "an observer saw the wrong leader",
			check: election,
			h: hist(
				mk("c1", KindCampaign, "/e", 0, 1, value("c1"), term(5)),
				mk("o1", KindLeaderObserved, "/e", 2, 2.1, observed("c2", 5)),
			),
			want: ViolationLeaderMismatch,
		},
		{
			name:  "a lock left free while wanted",
			check: liveness,
			h: withFaults(hist(
				mk("c1", KindAcquire, "/jobs", 10, 11),
				mk("c1", KindRelease, "/jobs", 11, 11.5),
				mk("c2", KindAcquire, "/jobs", 10.5, 20),
			), heal),
			want: ViolationStarvation,
		},
		{
			name:  "an election left without a leader",
			check: liveness,
			h: withFaults(hist(
				mk("c1", KindCampaign, "/e", 10, 11),
				mk("c1", KindResign, "/e", 11, 11.1),
				mk("c2", KindCampaign, "/e", 11, 20),
			), heal),
			want: ViolationLeaderless,
		},
		{
			name:  "a resolver that never converged",
			check: func(h History) Result { return DiscoveryConvergence(h, DiscoveryOptions{Bound: time.Second}) },
			h: hist(
				mk("ba", KindRegister, "/svc", 0, 0.1, value("a")),
				mk("r1", KindResolve, "/svc", 5, 5, endpoints()),
			),
			want: ViolationNotConverged,
		},
		{
			name:  "a stream that missed a change",
			check: watch,
			h: hist(
				mk("c1", KindWrite, "/p/a", 1, 1.1, rev(10)),
				mk("c1", KindWrite, "/p/b", 2, 2.1, rev(11)),
				mk("c1", KindWrite, "/p/a", 3, 3.1, rev(12)),
				watchFrom("w1", "/p/", 10, 0.5, 20),
				event("w1", "/p/", "/p/a", 10, 1.2),
				event("w1", "/p/", "/p/a", 12, 3.2),
			),
			want: ViolationMissedEvent,
		},
		{
			name:  "an event delivered twice",
			check: watch,
			h: hist(
				mk("c1", KindWrite, "/p/a", 1, 1.1, rev(10)),
				watchFrom("w1", "/p/", 10, 0.5, 2),
				event("w1", "/p/", "/p/a", 10, 1.2),
				event("w1", "/p/", "/p/a", 10, 1.3),
			),
			want: ViolationDuplicateEvent,
		},
		{
			name:  "revisions going back",
			check: watch,
			h: hist(
				mk("c1", KindWrite, "/p/a", 1, 1.1, rev(10)),
				mk("c1", KindWrite, "/p/b", 2, 2.1, rev(11)),
				watchFrom("w1", "/p/", 10, 0.5, 3),
				event("w1", "/p/", "/p/b", 11, 2.2),
				event("w1", "/p/", "/p/a", 10, 2.3),
			),
			want: ViolationRevisionRegression,
		},
		{
			name:  "resuming past what was seen",
			check: watch,
			h: hist(
				mk("c1", KindWrite, "/p/a", 1, 1.1, rev(10)),
				mk("c1", KindWrite, "/p/b", 2, 2.1, rev(11)),
				mk("w1", KindList, "/p/", 1.5, 1.6, rev(10)),
				watchFrom("w1", "/p/", 12, 2.5, 3),
				event("w1", "/p/", "/p/c", 12, 2.6),
			),
			want: ViolationResumeGap,
		},
		{
			name:  "watching again after ErrCompacted without listing",
			check: watch,
			h: hist(
				mk("c1", KindWrite, "/p/a", 1, 1.1, rev(10)),
				watchFrom("w1", "/p/", 5, 0.5, 0.6, failed, withOut(Output{CompactRevision: 9})),
				watchFrom("w1", "/p/", 10, 0.9, 2),
				event("w1", "/p/", "/p/a", 10, 1.2),
			),
			want: ViolationNoRelist,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := tc.check(tc.h)
			checkResult(t, res, VerdictViolation, "")
			for _, v := range res.Violations {
				if v.Kind != tc.want {
					t.Errorf("violation of kind %q, want %q: %s", v.Kind, tc.want, v.Message)
				}
			}
		})
	}
}

// TestCheckerKindsAreDistinct: no checker lists a kind twice, and no two
// checkers share a name.
func TestCheckerKindsAreDistinct(t *testing.T) {
	names := map[string]bool{}
	for _, c := range checkerKinds {
		if names[c.name] {
			t.Errorf("checker %q listed twice", c.name)
		}
		names[c.name] = true
		seen := map[ViolationKind]bool{}
		for _, k := range c.kinds {
			if seen[k] || k == "" {
				t.Errorf("%s: kind %q empty or listed twice", c.name, k)
			}
			seen[k] = true
		}
	}
}

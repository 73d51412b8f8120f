package checker

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExpectationMet(t *testing.T) {
	ok := func(name Name) Result {
		return Result{Checker: name, Verdict: VerdictOK, Summary: "3 holds of 1 lock"}
	}
	violation := func(name Name, kinds ...ViolationKind) Result {
		r := Result{Checker: name, Verdict: VerdictViolation, Summary: "1 violation"}
		for _, k := range kinds {
			r.Violations = append(r.Violations, Violation{Kind: k, Message: "found " + string(k)})
		}
		return r
	}
	unknown := Result{Checker: CheckerMutualExclusion, Verdict: VerdictUnknown, Summary: "no client ever held a lock"}
	invalid := Result{Checker: CheckerMutualExclusion, Verdict: VerdictInvalid, Summary: "bad",
		Invalid: &Violation{Message: "release with no matching acquire"}}
	overlap := Expectation{Checker: CheckerMutualExclusion, Violation: ViolationOverlap}
	anyMutex := Expectation{Checker: CheckerMutualExclusion}
	tests := []struct {
		name    string
		e       Expectation
		results []Result
		want    bool
		why     string
	}{
		{
			name:    "a pass when every check is ok",
			results: []Result{ok(CheckerMutualExclusion), ok(CheckerLiveness)},
			want:    true,
			why:     "all 2 checks ok",
		},
		{
			name:    "a pass counts the checks inside a combination",
			results: []Result{Combine("locks", ok(CheckerMutualExclusion), ok(CheckerFencing)), ok(CheckerLiveness)},
			want:    true,
			why:     "all 3 checks ok",
		},
		{
			name: "a pass with nothing checked",
			why:  "nothing was checked",
		},
		{
			name:    "unknown is not a pass",
			results: []Result{ok(CheckerLiveness), unknown},
			why:     "mutual-exclusion is unknown: no client ever held a lock",
		},
		{
			name:    "invalid is not a pass",
			results: []Result{invalid},
			why:     "mutual-exclusion is invalid: release with no matching acquire",
		},
		{
			name: "a failed pass names its worst finding, not the first check that could not decide",
			results: []Result{{Checker: CheckerFencing, Verdict: VerdictUnknown, Summary: "no token"},
				violation(CheckerMutualExclusion, ViolationLostUpdate)},
			why: "mutual-exclusion is violation: found lost-update",
		},
		{
			name:    "a violation inside a combination fails a pass, naming the part",
			results: []Result{Combine("locks", ok(CheckerMutualExclusion), violation(CheckerFencing, ViolationStaleAccepted))},
			why:     "fencing is violation: found stale-accepted",
		},
		{
			name:    "the expected kind",
			e:       overlap,
			results: []Result{ok(CheckerLiveness), violation(CheckerMutualExclusion, ViolationStaleWrite, ViolationOverlap)},
			want:    true,
			why:     "mutual-exclusion found overlap: found overlap",
		},
		{
			name:    "the expected kind inside a combination",
			e:       overlap,
			results: []Result{Combine("locks", ok(CheckerFencing), violation(CheckerMutualExclusion, ViolationOverlap))},
			want:    true,
			why:     "mutual-exclusion found overlap",
		},
		{
			name:    "any kind of the expected checker",
			e:       anyMutex,
			results: []Result{violation(CheckerMutualExclusion, ViolationLostUpdate)},
			want:    true,
			why:     "mutual-exclusion found a violation: found lost-update",
		},
		{
			name:    "the expected checker reports another kind",
			e:       overlap,
			results: []Result{violation(CheckerMutualExclusion, ViolationStaleWrite, ViolationLostUpdate, ViolationStaleWrite)},
			why:     "mutual-exclusion found stale-write, lost-update, not overlap",
		},
		{
			name:    "the expected checker reports a violation but kept none",
			e:       overlap,
			results: []Result{violation(CheckerMutualExclusion)},
			why:     "mutual-exclusion found a violation but kept none of kind overlap",
		},
		{
			name:    "another checker reports the kind",
			e:       Expectation{Checker: CheckerLockLinearizable, Violation: ViolationNotLinearizable},
			results: []Result{violation(CheckerRegisterLinearizable, ViolationNotLinearizable), ok(CheckerLockLinearizable)},
			why:     "lock-linearizable is ok: 3 holds of 1 lock",
		},
		{
			name:    "the expected checker is unknown",
			e:       anyMutex,
			results: []Result{unknown},
			why:     "mutual-exclusion is unknown: no client ever held a lock",
		},
		{
			name:    "the expected checker is invalid",
			e:       overlap,
			results: []Result{invalid},
			why:     "mutual-exclusion is invalid: release with no matching acquire",
		},
		{
			name:    "the expected checker did not run",
			e:       Expectation{Checker: CheckerFencing},
			results: []Result{Combine("locks", violation(CheckerMutualExclusion, ViolationOverlap))},
			why:     "no fencing result among locks, mutual-exclusion",
		},
		{
			name:    "a kind without a checker",
			e:       Expectation{Violation: ViolationOverlap},
			results: []Result{violation(CheckerMutualExclusion, ViolationOverlap)},
			why:     `violation "overlap" without a checker`,
		},
		{
			name: "a real overlap",
			e:    overlap,
			results: []Result{MutualExclusion(hist(
				mk("c1", KindAcquire, "/jobs", 0, 1),
				mk("c2", KindAcquire, "/jobs", 0.5, 2),
			), MutexOptions{})},
			want: true,
			why:  "mutual-exclusion found overlap: c2 acquired lock /jobs at 2.000s while c1 held it since 1.000s",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, why := tc.e.Met(tc.results...)
			if got != tc.want || !strings.Contains(why, tc.why) {
				t.Errorf("%s: Met = %v, %q; want %v, containing %q", tc.e, got, why, tc.want, tc.why)
			}
		})
	}
}

func TestExpectationValidate(t *testing.T) {
	tests := []struct {
		name    string
		e       Expectation
		wantErr string // "" for none
	}{
		{name: "a pass", e: Expectation{}},
		{name: "any violation of a checker", e: Expectation{Checker: CheckerLiveness}},
		{name: "a kind the checker reports", e: Expectation{Checker: CheckerLiveness, Violation: ViolationStarvation}},
		{name: "a kind two checkers report", e: Expectation{Checker: CheckerRegisterLinearizable, Violation: ViolationNotLinearizable}},
		{
			name:    "an unknown checker",
			e:       Expectation{Checker: "mutex", Violation: ViolationOverlap},
			wantErr: `checker: expectation: no checker "mutex" (want one of fencing, liveness, bank-total, left-behind, rw-exclusion, mutual-exclusion, session-kept, monotonic-reads, queue-delivery, revoked-lease, serializable, barrier-safety, election-safety, keys-on-leases, member-resources, permission-held, watch-guarantees, lock-linearizable, register-linearizable, discovery-convergence)`,
		},
		{
			name:    "a kind of another checker",
			e:       Expectation{Checker: CheckerMutualExclusion, Violation: ViolationStaleAccepted},
			wantErr: `checker: expectation: mutual-exclusion never reports "stale-accepted" (it reports stale-write, lost-update, overlap, phantom-update, unguarded-write)`,
		},
		{
			name:    "a kind nobody reports",
			e:       Expectation{Checker: CheckerLiveness, Violation: "no-progress"},
			wantErr: `liveness never reports "no-progress" (it reports leaderless, starvation)`,
		},
		{
			name:    "a kind without a checker",
			e:       Expectation{Violation: ViolationOverlap},
			wantErr: `checker: expectation: violation "overlap" without a checker (one of mutual-exclusion, rw-exclusion)`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.e.Validate()
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("Validate(%s) = %v, want nil", tc.e, err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("Validate(%s) = %v, want an error containing %q", tc.e, err, tc.wantErr)
			}
		})
	}
}

func TestExpectationString(t *testing.T) {
	tests := []struct {
		name string
		e    Expectation
		want string
	}{
		{name: "a pass", e: Expectation{}, want: "pass"},
		{name: "any violation", e: Expectation{Checker: CheckerFencing}, want: "violation of fencing"},
		{name: "a kind", e: Expectation{Checker: CheckerMutualExclusion, Violation: ViolationOverlap}, want: "violation of mutual-exclusion (overlap)"},
		{name: "a kind without a checker", e: Expectation{Violation: ViolationOverlap}, want: "violation (overlap)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.e.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestExpectationJSON(t *testing.T) {
	tests := []struct {
		name string
		e    Expectation
		json string
	}{
		{name: "a pass", e: Expectation{}, json: `{"checker":""}`},
		{name: "any violation", e: Expectation{Checker: CheckerLiveness}, json: `{"checker":"liveness"}`},
		{name: "a kind", e: Expectation{Checker: CheckerLiveness, Violation: ViolationLeaderless}, json: `{"checker":"liveness","violation":"leaderless"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.e)
			if err != nil || string(b) != tc.json {
				t.Fatalf("Marshal = %s, %v; want %s", b, err, tc.json)
			}
			var back Expectation
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.e, back); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}

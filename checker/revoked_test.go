package checker

import (
	"strings"
	"testing"
	"time"
)

// ka is a keep-alive answer about lease that client began to take at call
// and took at ret (seconds), giving the lease ttl, its header at hdr.
func ka(client string, lease int64, call, ret float64, ttl time.Duration, hdr int64) Operation {
	return mk(client, KindKeepAlive, "/jobs", call, ret, withOut(Output{Lease: lease, TTL: ttl, Header: hdr}))
}

// revoke is client's revoke of lease over [call, ret], at revision r.
func revoke(client string, lease int64, call, ret float64, r int64) Operation {
	return mk(client, KindRevoke, "", call, ret, withOut(Output{Lease: lease, Revision: r}))
}

// gw is a guarded write of client at t seconds.
func gw(client string, t float64) Operation {
	return mk(client, KindGuardedWrite, "/jobs", t, t+0.01, value("x"))
}

func TestRevokedLease(t *testing.T) {
	const lease = 0x694d
	for _, tc := range []struct {
		name string
		h    History
		want Verdict
		msg  string // in the first violation or the summary
	}{
		{"a buffered answer taken after the revoke, then a write", hist(
			mk("c1", KindAcquire, "/jobs", 0, 0.1, withOut(Output{Lease: lease})),
			ka("c1", lease, 0.5, 0.5, 5*time.Second, 7),
			revoke("c2", lease, 1, 1.1, 9),
			ka("c1", lease, 1.2, 1.2, 5*time.Second, 8),
			gw("c1", 1.25),
		), VerdictViolation, "c1 acted on lease 694d after it was revoked: op 2 (c2 revoke) had revoked it by 1.100s, " +
			"op 3 (keepalive from 1.200s) then took an answer saying it was alive for 5s (its header revision 8 is below the revoke's 9"},
		{"revoked by a fault aimed at the holder", withFaults(hist(
			mk("c1", KindAcquire, "/jobs", 0, 0.1, withOut(Output{Lease: lease})),
			ka("c1", lease, 1.2, 1.2, 5*time.Second, 0),
			gw("c1", 1.3),
		), FaultEvent{Name: "revoke-lease(lock-holder /jobs)", Action: "revoke-lease", Targets: []string{"c1"}, Start: at(1), End: at(1.05), Healed: true}),
			VerdictViolation, "fault revoke-lease(lock-holder /jobs) had revoked it by 1.050s"},
		{"a thread of the targeted process", withFaults(hist(
			mk("c1/2", KindAcquire, "/jobs", 0, 0.1, withOut(Output{Lease: lease})),
			ka("c1/2", lease, 1.2, 1.2, time.Second, 0),
			gw("c1/2", 1.3),
		), FaultEvent{Name: "revoke-lease(client c1)", Action: "revoke-lease", Targets: []string{"c1"}, Start: at(1), End: at(1.05), Healed: true}),
			VerdictViolation, "c1/2 acted on lease 694d"},
		{"the answer said the lease was gone", hist(
			revoke("c2", lease, 1, 1.1, 9),
			ka("c1", lease, 1.2, 1.2, 0, 9),
			gw("c1", 1.25),
		), VerdictOK, "1 keep-alive answer, 1 lease revoked, 0 answers taken after its revoke"},
		{"a stale answer read on until the channel closed, then no write", hist(
			revoke("c2", lease, 1, 1.1, 9),
			ka("c1", lease, 1.2, 1.2, 5*time.Second, 8),
			ka("c1", lease, 1.2, 1.3, 0, 0),
			gw("c1", 1.35),
		), VerdictOK, "1 answer taken after its revoke"},
		{"the answer began to be taken before the revoke returned", hist(
			ka("c1", lease, 1.0, 1.2, 5*time.Second, 8),
			revoke("c2", lease, 1, 1.1, 9),
			gw("c1", 1.25),
		), VerdictOK, "0 answers taken after its revoke"},
		{"the answer began to be taken as the revoke returned", hist(
			revoke("c2", lease, 1, 1.1, 9),
			ka("c1", lease, 1.1, 1.1, 5*time.Second, 8),
			gw("c1", 1.25),
		), VerdictOK, "0 answers taken after its revoke"},
		{"a write already under way when the answer came", hist(
			revoke("c2", lease, 1, 1.1, 9),
			gw("c1", 1.15),
			ka("c1", lease, 1.2, 1.2, 5*time.Second, 8),
		), VerdictOK, ""},
		{"another client's write", hist(
			revoke("c2", lease, 1, 1.1, 9),
			ka("c1", lease, 1.2, 1.2, 5*time.Second, 8),
			gw("c3", 1.3),
		), VerdictOK, ""},
		{"a crash between the answer and the write", hist(
			revoke("c2", lease, 1, 1.1, 9),
			ka("c1", lease, 1.2, 1.2, 5*time.Second, 8),
			crash("c1", 1.22),
			gw("c1", 1.3),
		), VerdictOK, ""},
		{"a revoke that failed revoked nothing", hist(
			mk("c2", KindRevoke, "", 1, 1.1, failed, withOut(Output{Lease: lease})),
			ka("c1", lease, 1.2, 1.2, 5*time.Second, 8),
			gw("c1", 1.3),
		), VerdictOK, "0 leases revoked"},
		{"no answer recorded", hist(
			revoke("c2", lease, 1, 1.1, 9),
			gw("c1", 1.3),
		), VerdictUnknown, "no keep-alive answer was recorded"},
		{"a keepalive without its lease", hist(
			ka("c1", 0, 1.2, 1.2, 5*time.Second, 8),
		), VerdictInvalid, "a keepalive must name its lease in Output.Lease"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := RevokedLease(tc.h, RevokedLeaseOptions{})
			if res.Verdict != tc.want {
				t.Fatalf("verdict %s, want %s: %s %v", res.Verdict, tc.want, res.Summary, messages(res))
			}
			text := res.Summary
			if len(res.Violations) > 0 {
				v := res.Violations[0]
				text = v.Message
				if v.Kind != ViolationActedAfterRevoke {
					t.Errorf("kind %s, want %s", v.Kind, ViolationActedAfterRevoke)
				}
				if last := v.Ops[len(v.Ops)-1]; last.Kind != KindGuardedWrite {
					t.Errorf("the violation ends with %s, want the act", last)
				}
			}
			if res.Invalid != nil {
				text = res.Invalid.Message
			}
			if !strings.Contains(text, tc.msg) {
				t.Errorf("%q does not say %q", text, tc.msg)
			}
		})
	}
}

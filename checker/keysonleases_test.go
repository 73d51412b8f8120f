package checker

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func grantAt(client string, lease int64, ttl time.Duration, call float64) Operation {
	return mk(client, KindLeaseGrant, "", call, call+0.01, withOut(Output{Lease: lease, TTL: ttl}))
}

func putAt(client, key string, lease int64, call float64) Operation {
	return mk(client, KindPut, key, call, call+0.01, withOut(Output{Lease: lease}))
}

func finalOf(at float64, keys []FinalKey, leases ...FinalLease) *FinalState {
	return &FinalState{At: at_(at), Keys: keys, Leases: leases}
}

func at_(s float64) time.Duration { return at(s) }

// keysOnLeasesCases are the histories KeysOnLeases is held to, each with
// its verdict and a piece of each sentence it must say.
var keysOnLeasesCases = []struct {
	name string
	h    History
	want Verdict
	msgs []string
}{
	{
		name: "a lock key on the holder's lease, revoked at release",
		h: hist(grantAt("c1", 7, time.Second, 0), putAt("c1", "etcdsim/lock/L/7", 7, 0.1),
			mk("c1", KindAcquire, "L", 0.1, 0.2), mk("c1", KindRevoke, "", 1, 1.1, withOut(Output{Lease: 7}))),
		want: VerdictOK,
	},
	{
		name: "a lock key on no lease, left after its holder crashed",
		h: func() History {
			h := hist(putAt("c1", "etcdsim/lock/L", 0, 0), mk("c1", KindAcquire, "L", 0, 0.1), crash("c1", 0.5),
				putAt("c2", "etcdsim/lock/L", 0, 1))
			h.Calls[1].Outcome = OutcomeFailed
			h.Final = finalOf(9, []FinalKey{{Key: "etcdsim/lock/L"}})
			return h
		}(),
		want: VerdictViolation,
		msgs: []string{"c1 wrote recipe key etcdsim/lock/L on no lease (op 0 at 0.000s)", "still in etcd when the run ended at 9.000s, 8.5s after its writer c1 crashed at 0.500s"},
	},
	{
		name: "the workload's own key on no lease is not the recipe's",
		h: func() History {
			h := hist(grantAt("c1", 7, time.Second, 0), putAt("c1", "etcdsim/lock/L/7", 7, 0.1), putAt("c1", "etcdsim/data/L", 0, 0.5))
			h.WorkloadKeys = []string{"etcdsim/data/"}
			return h
		}(),
		want: VerdictOK,
		msgs: []string{"1 key written under the workload's own prefixes, not judged"},
	},
	{
		name: "a write on a lease revoked before it",
		h: hist(grantAt("c1", 7, time.Second, 0), mk("c1", KindRevoke, "", 1, 1.1, withOut(Output{Lease: 7})),
			putAt("c1", "svc/a", 7, 2)),
		want: VerdictViolation,
		msgs: []string{"c1 wrote recipe key svc/a on lease 7 (op 2 at 2.000s), which op 1 (c1 revoke) had revoked by 1.100s"},
	},
	{
		name: "a key still on its lease long after its writer crashed",
		h: func() History {
			h := hist(grantAt("c1", 7, time.Second, 0), putAt("c1", "E/7", 7, 0.1), crash("c1", 1))
			h.Final = finalOf(20, []FinalKey{{Key: "E/7", Lease: 7}}, FinalLease{ID: 7, TTL: time.Second, Remaining: time.Second, Keys: []string{"E/7"}})
			return h
		}(),
		want: VerdictViolation,
		msgs: []string{"c1 wrote recipe key E/7 on lease 7 (op 1 at 0.100s)", "19s after c1 crashed at 1.000s", "granted for 1s, should have expired by 2.000s"},
	},
	{
		name: "a key on its lease a moment after its writer crashed is not yet late",
		h: func() History {
			h := hist(grantAt("c1", 7, time.Second, 0), putAt("c1", "E/7", 7, 0.1), crash("c1", 1))
			h.Final = finalOf(3, []FinalKey{{Key: "E/7", Lease: 7}}, FinalLease{ID: 7, TTL: time.Second, Remaining: time.Second})
			return h
		}(),
		want: VerdictOK,
	},
	{
		name: "a key written by something other than the recipe is named, and the run still judged",
		h: func() History {
			h := hist(grantAt("c1", 7, time.Second, 0), putAt("c1", "E/7", 7, 0.1), putAt("c1", "E/8", 0, 0.2))
			h.Final = finalOf(3, []FinalKey{{Key: "E/7", Lease: 7}, {Key: "E/8"}, {Key: "E/intruder"}}, FinalLease{ID: 7, TTL: time.Second, Remaining: time.Second})
			return h
		}(),
		want: VerdictViolation,
		msgs: []string{"1 key etcd held at the end (E/intruder) was written by none of the recipe's clients as their connections recorded it: something other than the recipe wrote it",
			"c1 wrote recipe key E/8 on no lease"},
	},
	{
		name: "a history that records no key write",
		h:    hist(mk("c1", KindAcquire, "L", 0, 0.1)),
		want: VerdictUnknown,
		msgs: []string{"no key write was recorded"},
	},
}

func TestKeysOnLeases(t *testing.T) {
	for _, tc := range keysOnLeasesCases {
		t.Run(tc.name, func(t *testing.T) {
			res := KeysOnLeases(tc.h, KeysOnLeasesOptions{})
			if res.Verdict != tc.want {
				t.Fatalf("verdict %s, want %s: %s", res.Verdict, tc.want, res.Err())
			}
			all := res.Summary + "\n" + strings.Join(messages(res), "\n")
			for _, m := range tc.msgs {
				if !strings.Contains(all, m) {
					t.Errorf("no sentence says %q; it said:\n%s", m, all)
				}
			}
			if err := checkKinds(res); err != nil {
				t.Error(err)
			}
		})
	}
}

// The histories under testdata/keys-on-leases were recorded by simrun:
// each case's want.txt holds the verdict on its first line and, on each
// line after, a piece of a sentence the judge must say.
func TestKeysOnLeasesRecorded(t *testing.T) {
	forEachCase(t, "testdata/keys-on-leases", func(t *testing.T, dir string, h History) {
		b, err := os.ReadFile(filepath.Join(dir, "want.txt"))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		res := RunJudge(CheckerKeysOnLeases, h, JudgeOptions{TTL: h.SessionTTL})
		if res.Verdict.String() != lines[0] {
			t.Fatalf("verdict %s, want %s: %s", res.Verdict, lines[0], res.Summary)
		}
		all := res.Summary + "\n" + strings.Join(messages(res), "\n")
		for _, m := range lines[1:] {
			if !strings.Contains(all, m) {
				t.Errorf("no sentence says %q; it said:\n%s", m, all)
			}
		}
	})
}

func TestTTLNote(t *testing.T) {
	for _, tc := range []struct {
		name    string
		h       History
		assumed time.Duration
		want    string
	}{
		{"the same TTL", hist(grantAt("c1", 7, time.Second, 0)), time.Second, ""},
		{"no grant recorded", hist(mk("c1", KindAcquire, "L", 0, 1)), time.Second, ""},
		{"a fixed TTL", hist(grantAt("c1", 7, 30*time.Second, 0), grantAt("c2", 8, 30*time.Second, 0)), 2 * time.Second,
			"the recipe's leases were granted a TTL of 30s, not the scenario's 2s: the judges took 30s, and the schedule's times and its checks' own bounds were set for 2s (simrun run -ttl 30s, or the workload's observed_ttl, plays it at the recipe's)"},
		{"several TTLs", hist(grantAt("c1", 7, 2*time.Second, 0), grantAt("c2", 8, 10*time.Second, 0),
			mk("c1", KindAcquire, "L", 0, 1, withOut(Output{Lease: 7})), mk("c2", KindAcquire, "L", 2, 3, withOut(Output{Lease: 8}))), time.Second,
			"the recipe's leases were granted several TTLs (2s, 10s), and the scenario assumed 1s: the judges took the largest, 10s"},
		{"an auxiliary lease of another TTL, not the recipe's", hist(grantAt("c1", 7, 2*time.Second, 0), grantAt("c1", 9, 60*time.Second, 0),
			mk("c1", KindAcquire, "L", 0, 1, withOut(Output{Lease: 7}))), time.Second,
			"the recipe's leases were granted a TTL of 2s, not the scenario's 1s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := TTLNote(tc.h, tc.assumed)
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Errorf("TTLNote = %q, want %q", got, tc.want)
			}
		})
	}
}

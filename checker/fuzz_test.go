package checker

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// seedHistories are good and bad histories for every checker, to seed the
// fuzz targets.
func seedHistories() []History {
	hs := []History{
		fullHistory(),
		hist(),
		hist(
			mk("c1", KindWrite, "x", 0, 1, value("1"), rev(4)),
			mk("c2", KindRead, "x", 2, 3, read("1"), rev(4)),
			mk("c3", KindCAS, "x", 2, never, withIn(Input{Expect: "1", Value: "2"})),
			mk("c1", KindDelete, "x", 4, 5, rev(6)),
			mk("c2", KindRead, "x", 6, 7, read("1")),
		),
		hist(
			mk("c1", KindCampaign, "/e", 0, 1, value("c1"), granted(5)),
			mk("c2", KindCampaign, "/e", 0.5, 3, value("c2"), granted(3)),
			mk("o1", KindLeaderObserved, "/e", 1.5, 1.6, withOut(Output{Value: "c1", Token: 5})),
			mk("c1", KindResign, "/e", 2, never),
			crash("c2", 4),
		),
		withFaults(hist(
			mk("c1", KindAcquire, "/jobs", 10, 11, granted(3)),
			crash("c1", 12),
			mk("c2", KindAcquire, "/jobs", 11.5, 18, granted(9)),
			mk("c2", KindGuardedWrite, "/jobs", 18, 19, token(9)),
			mk("c1", KindGuardedWrite, "/jobs", 18, 19, token(3), failed),
			mk("c2", KindSetAdd, "/jobs", 19, 20, value("a")),
			mk("c2", KindSetRead, "/jobs", 21, 22, withOut(Output{Values: []string{"b"}})),
			mk("c2", KindCounterIncr, "/jobs", 19, 20),
			mk("c2", KindCounterRead, "/jobs", 21, 22, withOut(Output{Count: 3})),
		), healed("partition", 5, 10)),
		hist(
			mk("ba", KindRegister, "/svc", 0, 0.1, value("a")),
			mk("bb", KindRegister, "/svc", 0, never, value("b")),
			mk("r1", KindResolve, "/svc", 3, 3, endpoints("a", "c")),
			crash("ba", 4),
			mk("c1", KindRPC, "/svc", 5, 5.1, value("a")),
			mk("ba", KindDeregister, "/svc", 6, 6.1, value("a")),
			mk("r1", KindResolve, "/svc", 70, 70, endpoints("a")),
		),
		hist(
			mk("c1", KindWrite, "/p/a", 1, 1.1, value("1"), rev(10)),
			mk("c1", KindWrite, "/p/b", 2, 2.1, value("1"), rev(11)),
			watchFrom("w1", "/p/", 5, 0.5, 0.6, failed, withOut(Output{CompactRevision: 9})),
			watchFrom("w1", "/p/", 10, 0.9, 20),
			event("w1", "/p/", "/p/b", 11, 2.2),
			event("w1", "/p/", "/p/b", 11, 2.3),
			event("w1", "/p/", "/p/a", 10, 2.4),
			mk("w1", KindList, "/p/", 3, 3.1, rev(11)),
		),
	}
	for _, c := range lockCases {
		hs = append(hs, c.h)
	}
	return hs
}

// addSeeds adds the seed histories, as JSON, and the invalid ones under
// testdata.
func addSeeds(f *testing.F) {
	f.Helper()
	for _, h := range seedHistories() {
		var buf bytes.Buffer
		if err := h.WriteJSON(&buf); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	files, err := filepath.Glob("testdata/invalid/*/history.json")
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"version":1,"ops":null}`))
	f.Add([]byte(`not json`))
}

func FuzzReadHistory(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := ReadHistory(bytes.NewReader(data))
		if err != nil {
			return
		}
		_ = h.Validate()
		var buf bytes.Buffer
		if err := h.WriteJSON(&buf); err != nil {
			t.Fatal(err)
		}
		again, err := ReadHistory(&buf)
		if err != nil {
			t.Fatalf("reading back what WriteJSON wrote: %v\n%s", err, buf.Bytes())
		}
		// WriteJSON writes the current version: an older history comes
		// back the same but for its version.
		h.Version = HistoryVersion
		if diff := cmp.Diff(h, again, cmpEmptyMaps); diff != "" {
			t.Errorf("round trip (-first +second):\n%s", diff)
		}
	})
}

// fuzzChecker feeds decoded histories to check: it must not panic, must
// call every history Validate rejects invalid, and must return a
// well-formed result that serializes.
func fuzzChecker(f *testing.F, check func(History) Result) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := ReadHistory(bytes.NewReader(data))
		if err != nil {
			return
		}
		res := check(h)
		if err := h.Validate(); err != nil && res.Verdict != VerdictInvalid {
			t.Fatalf("Validate says %v, but the verdict is %s", err, res.Verdict)
		}
		switch res.Verdict {
		case VerdictOK:
			if len(res.Violations) > 0 || res.Invalid != nil || res.Err() != nil {
				t.Fatalf("ok with findings: %+v", res)
			}
		case VerdictViolation:
			if len(res.Violations) == 0 {
				t.Fatalf("violation without violations: %+v", res)
			}
		case VerdictInvalid:
			if res.Invalid == nil {
				t.Fatalf("invalid without an explanation: %+v", res)
			}
		case VerdictUnknown:
		default:
			t.Fatalf("no such verdict: %d", res.Verdict)
		}
		if res.Checker == "" || res.Summary == "" {
			t.Fatalf("result without a checker name or summary: %+v", res)
		}
		if err := checkKinds(res); err != nil {
			t.Fatal(err)
		}
		if _, err := json.Marshal(res); err != nil {
			t.Fatal(err)
		}
	})
}

func FuzzMutualExclusion(f *testing.F) {
	fuzzChecker(f, func(h History) Result { return MutualExclusion(h, MutexOptions{}) })
}

func FuzzFencing(f *testing.F) {
	fuzzChecker(f, func(h History) Result { return Fencing(h, FencingOptions{}) })
}

func FuzzElectionSafety(f *testing.F) {
	fuzzChecker(f, func(h History) Result { return ElectionSafety(h, ElectionOptions{}) })
}

func FuzzLiveness(f *testing.F) {
	fuzzChecker(f, func(h History) Result { return Liveness(h, LivenessOptions{}) })
}

func FuzzDiscoveryConvergence(f *testing.F) {
	fuzzChecker(f, func(h History) Result { return DiscoveryConvergence(h, DiscoveryOptions{}) })
}

func FuzzWatchGuarantees(f *testing.F) {
	fuzzChecker(f, func(h History) Result { return WatchGuarantees(h, WatchOptions{}) })
}

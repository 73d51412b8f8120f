package checker

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp/cmpopts"
)

// cmpEmptyMaps makes nil and empty maps and slices equal.
var cmpEmptyMaps = cmpopts.EquateEmpty()

// at converts seconds on the run clock to a time.
func at(s float64) time.Duration { return time.Duration(math.Round(s * float64(time.Second))) }

// never is the return time, in seconds, of an operation whose outcome is
// unknown.
const never = -1

// mod changes an operation under construction.
type mod func(*Operation)

// mk builds an operation called at call and returning at ret (seconds); ret
// == never makes its outcome unknown, otherwise it is ok.
func mk(client string, kind Kind, key string, call, ret float64, mods ...mod) Operation {
	op := Operation{Client: client, Kind: kind, Key: key, Call: at(call), Return: at(ret), Outcome: OutcomeOK}
	if ret == never {
		op.Outcome, op.Return = OutcomeUnknown, Infinity
	}
	for _, m := range mods {
		m(&op)
	}
	return op
}

func failed(op *Operation)        { op.Outcome = OutcomeFailed }
func withIn(in Input) mod         { return func(op *Operation) { op.Input = in } }
func withOut(out Output) mod      { return func(op *Operation) { op.Output = out } }
func gaveUp(s float64) mod        { return func(op *Operation) { op.GaveUp = at(s) } }
func token(n int64) mod           { return func(op *Operation) { op.Input.Token = n } }
func granted(n int64) mod         { return func(op *Operation) { op.Output.Token = n } }
func value(v string) mod          { return func(op *Operation) { op.Input.Value = v } }
func rev(n int64) mod             { return func(op *Operation) { op.Output.Revision = n } }
func read(v string) mod           { return func(op *Operation) { op.Output.Value = v } }
func endpoints(eps ...string) mod { return func(op *Operation) { op.Output.Endpoints = eps } }

// crash builds a crash of client at t seconds.
func crash(client string, t float64) Operation { return mk(client, KindCrash, "", t, t) }

// hist numbers ops in order and makes a history of them, the calls of
// clients' connections in Calls.
func hist(ops ...Operation) History {
	for i := range ops {
		ops[i].ID = i
	}
	h := History{Ops: ops}
	h.SplitCalls()
	return h
}

// withFaults adds faults to a history.
func withFaults(h History, faults ...FaultEvent) History {
	h.Faults = faults
	return h
}

// healed is a fault from start to end seconds.
func healed(name string, start, end float64) FaultEvent {
	return FaultEvent{Name: name, Start: at(start), End: at(end), Healed: true}
}

// messages returns every sentence a result holds.
func messages(r Result) []string {
	var out []string
	if r.Invalid != nil {
		out = append(out, r.Invalid.Message)
	}
	for _, v := range r.Violations {
		out = append(out, v.Message)
	}
	return out
}

// checkResult fails the test unless res has verdict want and, if wantMsg is
// not empty, some sentence containing it. It dumps the result on failure.
func checkResult(t *testing.T, res Result, want Verdict, wantMsg string) {
	t.Helper()
	ok := res.Verdict == want
	if ok && wantMsg != "" {
		ok = false
		for _, m := range messages(res) {
			if strings.Contains(m, wantMsg) {
				ok = true
			}
		}
	}
	if !ok {
		b, _ := json.MarshalIndent(res, "", "  ")
		t.Errorf("verdict %s, want %s with a message containing %q; result:\n%s", res.Verdict, want, wantMsg, b)
	}
	if res.Verdict == VerdictViolation && len(res.Violations) == 0 {
		t.Errorf("violation without violations: %+v", res)
	}
	if err := checkKinds(res); err != nil {
		t.Error(err)
	}
	if res.Verdict == VerdictInvalid && res.Invalid == nil {
		t.Errorf("invalid without an explanation: %+v", res)
	}
}

// checkKinds returns an error unless every violation res keeps is of a
// kind its checker reports.
func checkKinds(res Result) error {
	j, ok := LookupJudge(res.Checker)
	kinds := j.Reports
	if !ok {
		if len(res.Violations) > 0 {
			return fmt.Errorf("violations from %q, which is no checker", res.Checker)
		}
		return nil
	}
	for _, v := range res.Violations {
		if !slices.Contains(kinds, v.Kind) {
			return fmt.Errorf("%s reported a violation of kind %q, not one of %v: %s", res.Checker, v.Kind, kinds, v.Message)
		}
	}
	return nil
}

// forEachCase runs body as a subtest for every case directory under root,
// with the history its history.json holds; a root with no case fails.
func forEachCase(t *testing.T, root string, body func(t *testing.T, dir string, h History)) {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(root, "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no cases under %s: %v", root, err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			f, err := os.Open(filepath.Join(dir, "history.json"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			h, err := ReadHistory(f)
			if err != nil {
				t.Fatal(err)
			}
			body(t, dir, h)
		})
	}
}

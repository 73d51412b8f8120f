package checker

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// namedChecker runs one checker with its zero options.
type namedChecker struct {
	name  string
	check func(History) Result
}

// checkers are every judge with its zero options, and mutual exclusion
// judged by the resource alone, for tests that must hold for all of them.
var checkers = func() []namedChecker {
	var cs []namedChecker
	for _, j := range Judges() {
		cs = append(cs, namedChecker{string(j.Name), func(h History) Result { return j.Run(h, JudgeOptions{}) }})
	}
	return append(cs, namedChecker{"mutual-exclusion/resource-only", func(h History) Result { return MutualExclusion(h, MutexOptions{ResourceOnly: true}) }})
}()

// TestInvalidHistories feeds each history under testdata/invalid/<case>/ to
// every checker: each must call it invalid, for the reason in want.txt,
// naming the offending operation.
func TestInvalidHistories(t *testing.T) {
	forEachCase(t, "testdata/invalid", func(t *testing.T, dir string, h History) {
		want, err := os.ReadFile(filepath.Join(dir, "want.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if err := h.Validate(); err == nil || !strings.Contains(err.Error(), strings.TrimSpace(string(want))) {
			t.Errorf("Validate() = %v, want an error containing %q", err, want)
		}
		for _, c := range checkers {
			res := c.check(h)
			checkResult(t, res, VerdictInvalid, strings.TrimSpace(string(want)))
			if res.Checker == "" || res.Err() == nil {
				t.Errorf("%s: result %+v has no checker name or no error", c.name, res)
			}
		}
	})
}

package simrun_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// -member-binaries runs on the real clock: with -clock virtual it is a
// usage error that says so, before anything is built or run.
func TestMemberBinariesNeedTheRealClock(t *testing.T) {
	code, _, stderr := simrunRun(t, "run", "-member-binaries", "-clock", "virtual", "-out", filepath.Join(t.TempDir(), "out"), "lock/mutex/leader-kill")
	if code != 2 {
		t.Errorf("exit %d; want 2 (usage)", code)
	}
	for _, want := range []string{"-member-binaries", "-clock virtual"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "goroutine ") {
		t.Errorf("a usage error printed a stack:\n%s", stderr)
	}
}

package simrun_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/cmd/simrun/simrun"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/scenarios"
)

// A user's recipe whose constructor gives nothing is reported as an
// unusable recipe, with the reason, not as a harness failure, and the run
// has no verdict.
func TestAnUnusableRecipeIsNoHarnessFailure(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a cluster")
	}
	nothing := lock.Recipe{Name: "gives-nothing", Summary: "a constructor that returns nil",
		New: func(*clientv3.Client, string, lock.Options) (lock.Locker, error) { return nil, nil }}
	s := scenarios.LockSafety(nothing)[0]
	out := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	code := simrun.Run(context.Background(), []string{"run", "-inprocess", "-out", out, s.Name}, &stdout, &stderr, s)
	if code != 1 {
		t.Errorf("exit code %d; want 1 (a run has no verdict)", code)
	}
	for _, want := range []string{"1 runs have no verdict: their recipe could not be used.", `recipe unusable: ` + s.Name, `lock recipe "gives-nothing"`} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout does not say %q:\n%s", want, stdout.String())
		}
	}
	if strings.Contains(stdout.String(), "harness failed") {
		t.Errorf("stdout calls the recipe's failure a harness failure:\n%s", stdout.String())
	}
}

package faults_test

import (
	"strings"
	"testing"

	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/faults"
)

// expire-token on a cluster without auth is an error saying so.
func TestExpireTokenNeedsAuth(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		_, env := start(t, 3, "c1")
		_, err := env.Inject(clustertest.Context(t), faults.ExpireToken(faults.Client("c1")))
		if err == nil || !strings.Contains(err.Error(), "auth is off") || !strings.Contains(err.Error(), "cluster.Config.Auth") {
			t.Errorf("expire-token without auth: %v; want an error saying auth is off and where to turn it on", err)
		}
		// In a schedule, the error names the step that fired it.
		tl := faults.Timeline{Seed: 1, Steps: []faults.Step{faults.At(0, 0, faults.ExpireToken(faults.Client("c1")))}}
		err = tl.Run(clustertest.Context(t), env)
		if err == nil || !strings.HasPrefix(err.Error(), "faults: step 0: expire-token(client c1) on [c1]: auth is off") {
			t.Errorf("a timeline's expire-token without auth: %v; want it to name step 0", err)
		}
	})
}

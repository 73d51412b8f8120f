package program_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/program"
)

func TestConform(t *testing.T) {
	c := realCluster(t)
	ctx := clustertest.Context(t)
	for _, family := range program.ConformFamilies() {
		t.Run(family+"/passes", func(t *testing.T) {
			var out, trace bytes.Buffer
			err := program.Conform(ctx, family, program.Config{Argv: adapterArgv("mutex"), Trace: &trace}, clustertest.Client(t, c, "ok-"+strings.ReplaceAll(family, "/", "-")), &out)
			require.NoError(t, err, out.String()+trace.String())
			require.NotContains(t, out.String(), "FAIL")
			require.Contains(t, trace.String(), `> {"id":1,"op":"ping"`, "the first line is a ping")
			fam, _, _ := strings.Cut(family, "/")
			require.Contains(t, trace.String(), `> {"id":2,"op":"init","family":"`+fam+`"`)
		})
	}
	t.Run("lock/fails", func(t *testing.T) {
		var out bytes.Buffer
		err := program.Conform(ctx, "lock", program.Config{Argv: adapterArgv("garbage")}, clustertest.Client(t, c, "bad"), &out)
		require.ErrorContains(t, err, `a second acquire while held gives up by its timeout_ms (error "timeout"): got process: gone: `)
		require.ErrorContains(t, err, `wrote "lock acquired!", which is not a JSON object`)
		require.Contains(t, out.String(), "ok   acquire answers ok")
	})
	t.Run("unknown family", func(t *testing.T) {
		err := program.Conform(ctx, "semaphore", program.Config{Argv: adapterArgv("mutex")}, clustertest.Client(t, c, "q"), &bytes.Buffer{})
		require.ErrorContains(t, err, `family "semaphore": want one of lock, election, discovery/registrar`)
	})
}

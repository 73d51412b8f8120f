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
	// The protocol allows an election that hands out no term, if its init
	// answer says so ("unfenced"); one whose terms are 0 and that does not
	// say so is told how to. On a cluster of their own: the checks above
	// leave keys (a queue's items) under the name every family's check
	// uses, which a campaign would wait behind.
	tests := []struct {
		name, mode string
		says       string // a line of the output
		fails      string // in the error; "" passes
	}{
		{name: "election/unfenced/passes", mode: "unfenced", says: `ok   campaign's term is 0 (none, as init's "unfenced" says) or positive`},
		{name: "election/zero-terms/fails", mode: "zeroterms", says: "FAIL campaign's term is positive",
			fails: `term 0; an election that hands out no term says why in init's answer, as "unfenced"`},
	}
	fresh := realCluster(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, trace bytes.Buffer
			err := program.Conform(ctx, "election", program.Config{Argv: adapterArgv(tt.mode), Trace: &trace}, clustertest.Client(t, fresh, tt.mode), &out)
			if tt.fails == "" {
				require.NoError(t, err, out.String()+trace.String())
			} else {
				require.ErrorContains(t, err, tt.fails)
			}
			require.Contains(t, out.String(), tt.says)
			require.Contains(t, trace.String(), `"term":0`)
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

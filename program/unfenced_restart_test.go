package program_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/program"
	"github.com/etcdsim/etcdsim/scenarios"
)

// TestUnfencedSurvivesRestart: a lock program that declares in its init
// answer that it hands out no fencing token keeps that declaration for
// its client when the client crashes and its program is started again.
// The restarted program of "unfenced-slow" never answers init before the
// run ends (as node does on a loaded machine): it declared nothing, and
// fencing stays not applicable rather than judged unknown on tokens of 0.
// The one of "unfenced-forgets" answers without the declaration: the run
// says so in a sentence and the first declaration stands.
func TestUnfencedSurvivesRestart(t *testing.T) {
	skipUnderRace(t)
	if testing.Short() {
		t.Skip("two 12-second real-clock runs")
	}
	for _, tc := range []struct {
		mode string
		says string // a recipe fault the run must report, "" for none about fencing
	}{
		{mode: "unfenced-slow"},
		{mode: "unfenced-forgets", says: `a restarted process's recipe declares that it hands out fencing tokens where the client's first declared no fencing token ("this recipe hands out no term"); the first declaration stands for the run`},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			// Real clock: the programs are other OS processes. They start
			// cold (cfg's Env is not the prestarted programs'), and each
			// learns from init which client it is.
			starts := t.TempDir()
			cfg := program.Config{Argv: adapterArgv(tc.mode), Env: append(os.Environ(), "ETCDSIM_TEST_STARTS="+starts)}
			s := find(t, scenarios.LockSafety(program.LockWith(tc.mode, cfg)), "/crash-holder")
			res, err := scenarios.Run(context.Background(), s, scenarios.Options{})
			require.NoError(t, err)
			require.Positive(t, crashes(res), "the holder's client never crashed: nothing was restarted")
			for _, c := range res.Checks {
				require.NotEqual(t, checker.CheckerFencing, c.Checker, "fencing judged (%s: %s) after the client's restart", c.Verdict, c.Summary)
			}
			na := strings.Join(res.NotApplicable, "\n")
			require.Contains(t, na, `fencing: not applicable: lock recipe "`+tc.mode+`" hands out no fencing token (this recipe hands out no term)`)
			faults := strings.Join(res.RecipeFaults, "\n")
			if tc.says == "" {
				require.NotContains(t, faults, "declares", "a program that never answered declared nothing")
				return
			}
			require.Contains(t, faults, tc.says)
		})
	}
}

// TestExamplesUnfencedAcrossRestart: both examples' adapters, which
// declare their locks unfenced, keep fencing not applicable through the
// crash and restart of the holder's client — node may take seconds to
// start again on a loaded machine, and a restart the run outlasts
// declared nothing.
func TestExamplesUnfencedAcrossRestart(t *testing.T) {
	skipUnderRace(t)
	if testing.Short() {
		t.Skip("12-second real-clock runs")
	}
	for _, tc := range examples {
		t.Run(tc.name, func(t *testing.T) {
			needExample(t, tc.argv)
			s := find(t, scenarios.LockSafety(program.Lock(tc.name, tc.argv...)), "/crash-holder")
			res, err := scenarios.Run(context.Background(), s, scenarios.Options{})
			require.NoError(t, err)
			require.Positive(t, crashes(res), "the holder's client never crashed")
			for _, c := range res.Checks {
				require.NotEqual(t, checker.CheckerFencing, c.Checker, "fencing judged (%s: %s) after the client's restart", c.Verdict, c.Summary)
			}
			require.Contains(t, strings.Join(res.NotApplicable, "\n"), "fencing: not applicable")
			t.Logf("%s: %s; recipe faults %q", s.Name, res.Why, res.RecipeFaults)
		})
	}
}

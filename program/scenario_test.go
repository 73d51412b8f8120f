package program_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/program"
	"github.com/etcdsim/etcdsim/scenarios"
)

// find returns the scenario of ss whose name ends in suffix.
func find(t *testing.T, ss []scenarios.Scenario, suffix string) scenarios.Scenario {
	t.Helper()
	for _, s := range ss {
		if strings.HasSuffix(s.Name, suffix) {
			return s
		}
	}
	t.Fatalf("no scenario ends in %s", suffix)
	return scenarios.Scenario{}
}

// TestScenarioRecordsCommand: a process recipe's scenario carries its
// command and its need of the real clock in its JSON, and the scenario
// read back from JSON, with no recipe value, builds the same recipe.
func TestScenarioRecordsCommand(t *testing.T) {
	argv := adapterArgv("mutex")
	s := find(t, scenarios.LockSafety(program.Lock("go-mutex", argv...)), "/pause-holder")
	b, err := json.Marshal(s)
	require.NoError(t, err)
	var back scenarios.Scenario
	require.NoError(t, json.Unmarshal(b, &back))
	require.Nil(t, back.Workload.Lock)
	require.Equal(t, argv, back.Workload.Command, "the JSON names the program")
	require.Equal(t, "a recipe in another process dials etcd through real sockets", back.Cluster.RealClock)
	require.NoError(t, back.Validate())
	res, err := scenarios.Run(context.Background(), back, scenarios.Options{})
	require.NoError(t, err)
	require.Equal(t, argv, res.Scenario.Workload.Command)
	require.Equal(t, "a recipe in another process dials etcd through real sockets", res.Scenario.Cluster.RealClock)
	require.Equal(t, "real", string(res.Scenario.Cluster.Clock))
	require.True(t, res.Met, res.Why)
	for _, f := range res.RecipeFaults {
		require.NotContains(t, f, "bypasses the faults", "a program that dials its endpoints")
	}

	v := back
	v.Cluster.Clock = "virtual"
	require.ErrorContains(t, v.Validate(), "needs the real clock: a recipe in another process")
	v = back
	v.Workload.Command = []string{""}
	require.ErrorContains(t, v.Validate(), "the first element is the program to run, and it is empty")
}

// TestProcessLockSafety: a correct lock in a process passes the lock
// family's pause and crash scenarios: the pause freezes the program, the
// crash kills it, and its restart starts it again.
func TestProcessLockSafety(t *testing.T) {
	skipUnderRace(t)
	if testing.Short() {
		t.Skip("two 12-second real-clock runs")
	}
	ss := scenarios.LockSafety(program.Lock("go-mutex", adapterArgv("mutex")...))
	for _, name := range []string{"/crash-holder", "/standard-mix"} {
		t.Run(name, func(t *testing.T) {
			res := scenarios.Test(t, find(t, ss, name))
			require.True(t, res.Met, res.Why)
		})
	}
}

// TestProcessElectionSafety: a correct election in a process passes the
// election family's crash scenario.
func TestProcessElectionSafety(t *testing.T) {
	skipUnderRace(t)
	if testing.Short() {
		t.Skip("a real-clock run")
	}
	res := scenarios.Test(t, find(t, scenarios.ElectionSafety(program.Election("go-election", adapterArgv("mutex")...)), "/crash-leader"))
	require.True(t, res.Met, res.Why)
}

// TestBrokenProgramJudged: programs that exit at their second acquire, or
// enqueue, are recorded as their clients' crashes, each with why, and the
// run is still judged.
func TestBrokenProgramJudged(t *testing.T) {
	skipUnderRace(t)
	t.Run("lock", func(t *testing.T) {
		brokenJudged(t, find(t, scenarios.LockSafety(program.LockWith("exits", program.Config{Argv: adapterArgv("exit")})), "/contention"), "acquire")
	})
	t.Run("queue", func(t *testing.T) {
		if testing.Short() {
			t.Skip("the lock's case records the same exit as a crash; make test runs this one too")
		}
		brokenJudged(t, scenarios.QueueSafety(program.QueueWith("exits", program.Config{Argv: adapterArgv("exit:enqueue")}))[0], "enqueue")
	})
}

func brokenJudged(t *testing.T, s scenarios.Scenario, op string) {
	s.Faults = scenarios.Faults{}
	s.Workload.Duration = scenarios.Duration(3 * time.Second)
	res, err := scenarios.Run(context.Background(), s, scenarios.Options{})
	require.NoError(t, err)
	require.NotEmpty(t, res.Checks)
	crashed := crashes(res)
	require.Positive(t, crashed)
	var exits int
	for _, ev := range res.Faults {
		if ev.Action == "program-exit" {
			exits++
			require.Contains(t, ev.Detail, "exited (exit status 1)")
			require.Contains(t, ev.Detail, `"op":"`+op+`"`)
		}
	}
	require.Equal(t, crashed, exits)
}

// TestReadyBeforeTheClock: a program that takes 3s to start reading
// its stdin is started, and waited for, before the run's clock and its
// faults start, so the run's first acquires find it ready: a run of 2s
// whose programs started on the run's clock would have none.
func TestReadyBeforeTheClock(t *testing.T) {
	skipUnderRace(t)
	s := find(t, scenarios.LockSafety(program.Lock("sleepy", adapterArgv("sleepy")...)), "/contention")
	s.Faults = scenarios.Faults{}
	s.Workload.Duration = scenarios.Duration(2 * time.Second)
	res, err := scenarios.Run(context.Background(), s, scenarios.Options{})
	require.NoError(t, err)
	acquired := 0
	for _, op := range res.History().Ops {
		if op.Kind == checker.KindAcquire && op.Outcome == checker.OutcomeOK {
			acquired++
		}
	}
	require.Positive(t, acquired, "no acquire succeeded in a 2s run: the programs' 3s start ate the run")
}

// TestNeverReady: a scenario whose program dies before it says it is
// ready is an error that names the client, the program and why, and is
// no harness failure.
func TestNeverReady(t *testing.T) {
	s := find(t, scenarios.LockSafety(program.Lock("noinit", adapterArgv("noinit")...)), "/contention")
	_, err := scenarios.Run(context.Background(), s, scenarios.Options{})
	require.ErrorIs(t, err, scenarios.ErrRecipe)
	require.NotErrorIs(t, err, scenarios.ErrHarness)
	require.ErrorContains(t, err, "client c1: program [")
	require.ErrorContains(t, err, "is not ready after")
	require.ErrorContains(t, err, "exited (exit status 3)")
	require.ErrorContains(t, err, "adapter: cannot load my libraries")
}

// TestProcessFamilies: every family's recipe in a process — etcdsim's own
// correct recipes behind the protocol — passes a safety scenario of its
// family, with its faults: what a run in Go passes, a run through the
// protocol passes too.
func TestProcessFamilies(t *testing.T) {
	skipUnderRace(t)
	if testing.Short() {
		t.Skip("real-clock runs of every family")
	}
	argv := adapterArgv("mutex")
	for _, tc := range []struct {
		name string
		ss   []scenarios.Scenario
	}{
		{"rwmutex", scenarios.RWMutexSafety(program.RWMutex("go-rwmutex", argv...))},
		{"queue", scenarios.QueueSafety(program.Queue("go-queue", argv...))},
		{"barrier", scenarios.BarrierSafety(program.Barrier("go-barrier", argv...))},
		{"plain-barrier", scenarios.PlainBarrierSafety(program.PlainBarrier("go-plain-barrier", argv...))},
		{"register", scenarios.RegisterSafety(program.Register("go-register", argv...))},
		{"stm", scenarios.STMSafety(program.STM("go-stm", argv...))},
		{"discovery/registrar", scenarios.DiscoverySafety(program.Registrar("go-registrar", argv...))},
		{"discovery/resolver", scenarios.DiscoveryResolverSafety(program.Resolver("go-resolver", argv...))},
		{"election/observe", scenarios.ElectionSafety(program.Election("go-election", argv...))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.ss[0]
			require.Equal(t, argv, s.Workload.Command)
			res := scenarios.Test(t, s)
			require.True(t, res.Met, "%s: %s", s.Name, res.Why)
		})
	}
}

// TestABypassingProgramIsNamedInTheResult: a lock's program that asks the
// cluster for its members and dials their own addresses, around its
// client's links, is named in the result's recipe faults.
func TestABypassingProgramIsNamedInTheResult(t *testing.T) {
	s := find(t, scenarios.LockSafety(program.Lock("go-direct", adapterArgv("direct")...)), "/pause-holder")
	s.Workload.Duration = scenarios.Duration(3 * time.Second)
	res, err := scenarios.Run(context.Background(), s, scenarios.Options{})
	require.NoError(t, err)
	found := false
	for _, f := range res.RecipeFaults {
		found = found || strings.Contains(f, "bypasses the faults") && strings.Contains(f, "client c1")
	}
	require.True(t, found, "recipe faults: %q", res.RecipeFaults)
}

// crashes counts the crashes of clients a run recorded.
func crashes(res *scenarios.Result) int {
	n := 0
	for _, op := range res.History().Ops {
		if op.Kind == checker.KindCrash {
			n++
		}
	}
	return n
}

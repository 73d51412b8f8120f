package scenarios

import (
	"bytes"
	"fmt"
	"time"

	"github.com/etcdsim/etcdsim/checker"
)

// Result is what one run of a scenario found. It is plain data; Run writes
// it as result.json beside the history (history.json), and package
// scenarios/results reads both back.
type Result struct {
	// Version is the schema version (SchemaVersion).
	Version int `json:"version"`
	// Scenario is the scenario as run, every default filled in: replaying
	// it runs the same schedule and workload choices again.
	Scenario Scenario `json:"scenario"`
	// Started is when the run began, on the wall clock.
	Started time.Time `json:"started"`
	// Timings are how long each phase took, on the run's clock
	// (Scenario.Cluster.Clock), and the run's wall time.
	Timings Timings `json:"timings"`
	// Checks are the checkers' results, in the scenario's order.
	Checks []checker.Result `json:"checks"`
	// Verdict is the most severe of the checks' verdicts.
	Verdict checker.Verdict `json:"verdict"`
	// Met says whether the checks meet the scenario's expectation, and Why
	// says so in a sentence.
	Met bool   `json:"met"`
	Why string `json:"why"`
	// Ops counts the operations recorded, and Faults the fault events.
	Ops    int                  `json:"ops"`
	Faults []checker.FaultEvent `json:"faults,omitempty"`
	// ScheduleErr is what the fault schedule reported: faults that could
	// not be injected or healed. The checkers judge the history all the
	// same, but the run does not meet its expectation: it did not test
	// what it says.
	ScheduleErr string `json:"schedule_error,omitempty"`
	// RecipeFaults are what the recipe under test did wrong that did not
	// stop the run, one sentence each: a Close that failed, panicked or
	// did not return, a library's dial of an address the harness had not
	// given. The run is judged all the same.
	RecipeFaults []string `json:"recipe_faults,omitempty"`
	// NotApplicable lists the scenario's checks left out because they do
	// not apply to the recipe, each with why: fencing, for a lock that
	// declares it hands out no token (lock.Unfenced).
	NotApplicable []string `json:"not_applicable,omitempty"`
	// Replay is the command that runs this scenario again with its seed.
	Replay string `json:"replay"`
	// Dir is where the run's files were written, "" if nowhere.
	Dir string `json:"dir,omitempty"`

	history checker.History
	made    []madeValue // the kinds of recipe values the run made
}

// Timings are the durations of a run's phases on the run's clock — virtual
// or real — and the wall time it took.
type Timings struct {
	Start    Duration `json:"start"`    // cluster and clients up
	Workload Duration `json:"workload"` // workload and schedule, to the last heal
	Check    Duration `json:"check"`    // checkers
	Total    Duration `json:"total"`
	// Wall is the run's wall time, from its start to its verdict; on the
	// real clock it is about Total.
	Wall Duration `json:"wall,omitempty"`
}

// History returns the recorded history of the run Run returned. A result
// read back from its file has none: results.ReadRun reads the history
// beside it.
func (r *Result) History() checker.History { return r.history }

// Err returns nil when the run met its expectation, and otherwise an error
// that says what was expected, what was found (every violation's sentence),
// the seed and the command that replays the run.
func (r *Result) Err() error {
	if r.Met {
		return nil
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "scenario %s (seed %s) did not meet its expectation: %s\n", r.Scenario.Name, r.Scenario.Seed, r.Why)
	for _, f := range r.RecipeFaults {
		fmt.Fprintf(&b, "  the recipe's fault: %s\n", f)
	}
	for _, c := range r.Checks {
		fmt.Fprintf(&b, "  %s: %s: %s\n", c.Checker, c.Verdict, c.Summary)
		for _, v := range c.Violations {
			fmt.Fprintf(&b, "    - %s\n", v.Message)
		}
	}
	if r.ScheduleErr != "" {
		fmt.Fprintf(&b, "  fault schedule: %s\n", r.ScheduleErr)
	}
	if r.Dir != "" {
		fmt.Fprintf(&b, "  files: %s\n", r.Dir)
	}
	fmt.Fprintf(&b, "  replay: %s", r.Replay)
	return fmt.Errorf("%s", b.String())
}

// FirstViolation is when the run first showed a violation, on the run's
// clock: for each violation, when the last operation it names began (by
// then every part of it had happened or was under way), and the earliest
// of those. ok is false when no check found a violation that names an
// operation.
func (r *Result) FirstViolation() (t time.Duration, ok bool) {
	var walk func(rs []checker.Result)
	walk = func(rs []checker.Result) {
		for _, c := range rs {
			for _, v := range c.Violations {
				if len(v.Ops) == 0 {
					continue
				}
				last := v.Ops[0].Call
				for _, op := range v.Ops[1:] {
					last = max(last, op.Call)
				}
				if !ok || last < t {
					t, ok = last, true
				}
			}
			walk(c.Parts)
		}
	}
	walk(r.Checks)
	return t, ok
}

// NotApplied returns the faults of the run's schedule that could not apply
// to it (checker.FaultEvent.NotApplicable), each as "name: why", in the
// order they fired; nil if every fault applied.
func (r *Result) NotApplied() []string {
	var out []string
	for _, f := range r.Faults {
		if f.NotApplicable != "" {
			out = append(out, f.Name+": "+f.NotApplicable)
		}
	}
	return out
}

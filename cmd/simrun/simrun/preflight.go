package simrun

// What simrun checks before any cluster starts, beyond each scenario's own
// Validate: that a -command's program can be started, that a run is at
// least as long as its fault schedule where the user set either, and that
// a program's own scenarios do not take a registered scenario's name. Each
// finding is one line; simrun exits 2 with it and writes nothing.

import (
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"

	"github.com/etcdsim/etcdsim/scenarios"
)

// checkProgram reports a program that cannot be started: argv[0] not
// found, on PATH or as a path, or not executable. what names where the
// program came from ("-command", "workload.command").
func checkProgram(what string, argv []string) error {
	if len(argv) == 0 || argv[0] == "" {
		return fmt.Errorf("%s %q names no program", what, argv)
	}
	if _, err := exec.LookPath(argv[0]); err != nil {
		var ee *exec.Error
		if errors.As(err, &ee) {
			err = ee.Err
		}
		return fmt.Errorf("%s %q: cannot run %s: %v", what, strings.Join(argv, " "), argv[0], err)
	}
	return nil
}

// checkPrograms reports, once for each, every program of jobs' workload
// commands that cannot be started (checkProgram).
func checkPrograms(jobs []job) error {
	seen := map[string]bool{}
	var errs []error
	for _, j := range jobs {
		argv := j.scenario.Workload.Command
		if len(argv) == 0 || seen[argv[0]] {
			continue
		}
		seen[argv[0]] = true
		if err := checkProgram("workload.command", argv); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", j.label(), err))
		}
	}
	return errors.Join(errs...)
}

// checkUniqueNames reports a scenario name that all holds twice: a
// program's own scenario named as a registered one, or as another of its
// own. Both would be listed, and a run by name would pick one of them.
func checkUniqueNames(all []scenarios.Scenario, registered int) error {
	first := map[string]int{}
	var dups []string
	for i, s := range all {
		j, ok := first[s.Name]
		if !ok {
			first[s.Name] = i
			continue
		}
		whose := "a registered scenario"
		if j >= registered {
			whose = "another of the program's own"
		}
		dups = append(dups, fmt.Sprintf("%q (also %s)", s.Name, whose))
	}
	if len(dups) == 0 {
		return nil
	}
	return fmt.Errorf("the program's own scenarios repeat names: %s; give each scenario a name of its own", strings.Join(dups, ", "))
}

// findings splits the error of a scenario's Validate into its findings,
// one a line, without the "scenarios: NAME: " prefix that the caller
// replaces with the run's label.
func findings(name string, err error) []string {
	text := strings.TrimPrefix(err.Error(), "scenarios: "+name+": ")
	return strings.Split(text, "\n")
}

// skipList names the scenarios a -command cannot run, grouped by the
// reason each cannot: "A, B (reason); C (reason)".
func skipList(skipped []scenarios.Scenario, reasons []string) string {
	var order []string
	by := map[string][]string{}
	for i, s := range skipped {
		r := reasons[i]
		if _, ok := by[r]; !ok {
			order = append(order, r)
		}
		by[r] = append(by[r], s.Name)
	}
	var parts []string
	for _, r := range order {
		parts = append(parts, fmt.Sprintf("%s (%s)", strings.Join(by[r], ", "), r))
	}
	return strings.Join(parts, "; ")
}

// namedExactly says whether the scenario called name was given by its
// exact name among patterns, not matched by a prefix or glob.
func namedExactly(patterns []string, name string) bool { return slices.Contains(patterns, name) }

// checkLengths reports every job whose fault timeline runs past its
// workload's end (scenarios.Scenario.CheckScheduleLength), once a
// scenario; what names what shortened the run ("-duration").
func checkLengths(jobs []job, what string) error {
	seen := map[string]bool{}
	var errs []error
	for _, j := range jobs {
		if seen[j.label()] {
			continue
		}
		seen[j.label()] = true
		if err := j.scenario.CheckScheduleLength(); err != nil {
			for _, f := range findings(j.scenario.Name, err) {
				errs = append(errs, fmt.Errorf("%s: %s: %s", what, j.label(), f))
			}
		}
	}
	return errors.Join(errs...)
}

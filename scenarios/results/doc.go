// Package results owns what a run leaves behind: the files of a results
// directory, where each run's files go in it, and the one strict,
// versioned reader and writer of each file. simrun writes through it;
// package reports, simrun's merge, replay, shrink and resume, and the soak
// check read through it. A change of format is one edit here, and every
// reader sees it.
//
// A results directory, as simrun run, gallery, campaign and merge write
// it:
//
//	summary.json                     Summary: every finished run and, per scenario, how they went
//	<scenario>[/<variant>]/seed-<n>/ a run's directory (RunDir), such as lock-mutex-leader-kill/members-5/seed-3
//	    scenario.json                scenarios.Scenario: the run to do, as simrun's parent hands it to its child
//	    result.json                  scenarios.Result: what the run found, the scenario as run included
//	    history.json                 checker.History: every operation the run recorded
//	    programs/c1.stderr           with workload.command: each program's standard error, whole
//
// with the pages of package reports beside them, and what simrun's child
// leaves for its parent (child.log, harness-error.txt, stopping.txt…). A scenario and
// the variant a campaign gave it are named together as name[variant]
// (Label) everywhere a person reads them.
//
// Every file carries a version: summary.json SummaryVersion, scenario.json
// and result.json scenarios.SchemaVersion, history.json
// checker.HistoryVersion. A reader takes every version up to its own, and
// a newer one is a *VersionError naming the file and both versions;
// unknown fields, values of the wrong type and trailing data are errors
// that name the file and the line; a file that ends early wraps
// ErrTruncated. Every file is written whole or not at all (a temporary
// file renamed into place), result.json after history.json, so a run
// whose result.json is there is a finished run — which is what simrun
// campaign's resume goes by.
//
// The package sits above package scenarios, whose Scenario and Result it
// reads and writes, and below everything that reads a results directory
// (reports, cmd/simrun): scenarios must not import it, and does not need
// to. scenarios.Run writes a run's result.json and history.json itself,
// for simrun's child and for scenarios.Test's artifacts, through
// internal/runfile: the writing half of this package, put below
// scenarios so that there is still one writer.
//
//	d, err := results.ReadDir("results/gallery")
//	if err != nil {
//		return err // not a results directory, or a summary.json of a newer etcdsim
//	}
//	for _, r := range d.Runs {
//		fmt.Println(r.Label(), r.Result.Scenario.Seed, r.Result.Verdict)
//	}
//	return d.Err() // the runs that could not be read, each naming its file
package results

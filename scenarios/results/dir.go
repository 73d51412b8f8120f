package results

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Dir is a results directory read back: its summary and every run in it.
type Dir struct {
	// Path is the directory as it was given.
	Path string
	// Summary is nil when the directory has no summary.json, or one that
	// could not be read (Failed says why).
	Summary *Summary
	// Runs are the runs that were read, ordered by label, then seed.
	Runs []*Run
	// Failed are the runs that were not read, and why: a file missing,
	// truncated, malformed or of a newer version; a run directory not
	// where its result says it belongs; a run summary.json does not list
	// (one of another batch); a run summary.json lists that has no
	// result (its harness failed). Each error names the file or the
	// directory.
	Failed []RunError
	// Interrupted are the runs the summary lists as stopped by simrun's
	// interrupt before they had a verdict (SummaryRun.Interrupted), with
	// why. They are neither met nor missed nor broken: their runs never
	// ended, and Err does not count them.
	Interrupted []RunError
}

// errInterrupted marks a run readRun found without a result because the
// interrupt stopped it.
type errInterrupted struct{ error }

// RunError is a run, or a file, of a results directory that was not read.
type RunError struct {
	// Dir is the run's directory relative to the results directory,
	// slash-separated; "." for the results directory's own files.
	Dir string
	Err error
}

func (e RunError) Error() string { return e.Err.Error() }
func (e RunError) Unwrap() error { return e.Err }

// Err returns nil when every run was read, and otherwise one error
// listing those that were not.
func (d *Dir) Err() error {
	var errs []error
	for _, f := range d.Failed {
		errs = append(errs, f.Err)
	}
	return errors.Join(errs...)
}

// ReadDir reads the results directory dir: its summary.json, if it has
// one, and every run directory under it (one holding a scenario.json,
// result.json or history.json; what lies inside a run directory, such as
// simrun replay's replay/, is that run's own). Runs that cannot be read
// are listed in Failed, each with the file and what is wrong; when dir
// has a summary, a run it does not list is not read as one of its runs,
// and is listed in Failed too. The error is for dir itself: not a
// directory, a run's directory rather than a results directory, or a
// summary.json of a newer version.
func ReadDir(dir string) (*Dir, error) { return ReadDirEach(dir, nil) }

// ReadDirEach is ReadDir that hands each run to each as soon as it is
// read, in the order of RunDirs, before keeping it: each may draw the run
// and drop what it no longer needs (its history, say), so that a directory
// of many runs is never held whole. A run each returns an error for is
// listed in Failed with that error instead of in Runs. A nil each is
// ReadDir.
func ReadDirEach(dir string, each func(*Run) error) (*Dir, error) {
	if fi, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("results: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("results: %s is not a directory", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, ResultFile)); err == nil {
		return nil, fmt.Errorf("results: %s holds a run's %s: it is a run's directory, not a results directory (ReadRun reads it)", dir, ResultFile)
	}
	d := &Dir{Path: dir}
	listed := map[string]*SummaryRun{}
	if _, err := os.Stat(filepath.Join(dir, SummaryFile)); err == nil {
		s, err := ReadSummary(filepath.Join(dir, SummaryFile))
		var v *VersionError
		switch {
		case errors.As(err, &v):
			return nil, err
		case err != nil:
			// The runs are still worth reading, each on its own.
			d.Failed = append(d.Failed, RunError{Dir: ".", Err: err})
		default:
			d.Summary = s
			for i := range s.Runs {
				listed[filepath.ToSlash(s.Runs[i].Dir)] = &s.Runs[i]
			}
		}
	}
	rels, err := RunDirs(dir)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, rel := range rels {
		seen[rel] = true
		r, err := d.readRun(rel, listed[rel])
		if err == nil && each != nil {
			err = each(r)
		}
		var stopped errInterrupted
		switch {
		case errors.As(err, &stopped):
			d.Interrupted = append(d.Interrupted, RunError{Dir: rel, Err: stopped.error})
			continue
		case err != nil:
			d.Failed = append(d.Failed, RunError{Dir: rel, Err: err})
			continue
		}
		d.Runs = append(d.Runs, r)
	}
	if d.Summary != nil {
		for _, o := range d.Summary.Runs {
			rel := filepath.ToSlash(o.Dir)
			if seen[rel] {
				continue
			}
			why := "its directory has no " + ResultFile
			if o.Error != "" {
				why = "no verdict: " + o.Error
			}
			if o.Interrupted {
				d.Interrupted = append(d.Interrupted, RunError{Dir: rel, Err: interruptedErr(rel, &o)})
				continue
			}
			d.Failed = append(d.Failed, RunError{Dir: rel, Err: fmt.Errorf("results: %s (%s seed %s): %s", rel, o.Label(), o.Seed, why)})
		}
	}
	slices.SortStableFunc(d.Runs, func(a, b *Run) int {
		if n := strings.Compare(a.Label(), b.Label()); n != 0 {
			return n
		}
		return cmp.Compare(a.Result.Scenario.Seed, b.Result.Scenario.Seed)
	})
	return d, nil
}

// readRun reads the run directory rel of d, which the summary lists as
// listed (nil if it does not, or there is no summary). Its files are
// named relative to d in errors.
func (d *Dir) readRun(rel string, listed *SummaryRun) (*Run, error) {
	variant, seed, ok := ParseRunDir(rel)
	if !ok {
		return nil, fmt.Errorf("results: %s is not where a run goes in a results directory (<scenario>[/<variant>]/seed-<n>): skipped", rel)
	}
	dir := filepath.Join(d.Path, filepath.FromSlash(rel))
	r, err := readRun(dir, rel)
	if errors.Is(err, fs.ErrNotExist) {
		switch _, serr := os.Stat(filepath.Join(dir, ResultFile)); {
		case listed != nil && listed.Interrupted && errors.Is(serr, fs.ErrNotExist):
			return nil, errInterrupted{interruptedErr(rel, listed)}
		case listed != nil && listed.Error != "":
			return nil, fmt.Errorf("results: %s (%s seed %s): no verdict: %s", rel, listed.Label(), seed, listed.Error)
		case errors.Is(serr, fs.ErrNotExist):
			return nil, fmt.Errorf("results: %s: the run started but left no %s: it was interrupted, or killed with simrun: %w", rel, ResultFile, err)
		}
	}
	if err != nil {
		return nil, err
	}
	s := r.Result.Scenario
	if want := RunDir(s.Name, variant, s.Seed); want != rel {
		return nil, fmt.Errorf("results: %s holds a run of %s seed %s, which belongs in %s: skipped", path.Join(rel, ResultFile), s.Name, s.Seed, want)
	}
	if d.Summary != nil && listed == nil {
		of := "simrun " + d.Summary.Command
		if d.Summary.Campaign != "" {
			of = "campaign " + d.Summary.Campaign
		}
		return nil, fmt.Errorf("results: %s is not among the runs %s lists (of %s): a run of another batch, or one that finished after the summary was written: skipped",
			rel, SummaryFile, of)
	}
	r.Dir, r.Variant = rel, variant
	return r, nil
}

// RunDirs lists the run directories under the results directory dir,
// relative and slash-separated, sorted: every directory below dir that
// holds a scenario.json, result.json or history.json — a run finished,
// started, or cut short — not looking inside them.
func RunDirs(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.IsDir() || p == dir {
			return nil
		}
		for _, f := range []string{ResultFile, HistoryFile, ScenarioFile} {
			if _, err := os.Stat(filepath.Join(p, f)); err == nil {
				rel, err := filepath.Rel(dir, p)
				if err != nil {
					return err
				}
				out = append(out, filepath.ToSlash(rel))
				return filepath.SkipDir
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	slices.Sort(out)
	return out, nil
}

// interruptedErr says why the run at rel, which the summary lists as o,
// has no verdict: the interrupt stopped it.
func interruptedErr(rel string, o *SummaryRun) error {
	why := o.Why
	if why == "" {
		why = "interrupted before it had a verdict"
	}
	return fmt.Errorf("results: %s (%s seed %s): %s", rel, o.Label(), o.Seed, why)
}

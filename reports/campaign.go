package reports

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/seed"
)

// summaryVersion is the newest summary.json this package reads.
const summaryVersion = 1

// Summary is what reports reads of a results directory's summary.json,
// written by simrun. Fields simrun adds later are ignored.
type Summary struct {
	Version      int                `json:"version"`
	Command      string             `json:"command"`
	Campaign     string             `json:"campaign,omitempty"`
	CampaignRuns int                `json:"campaign_runs,omitempty"`
	Planned      int                `json:"planned"`
	Started      time.Time          `json:"started"`
	Elapsed      scenarios.Duration `json:"elapsed"`
	Interrupted  bool               `json:"interrupted,omitempty"`
	Runs         []SummaryRun       `json:"runs"`
}

// SummaryRun is one run as summary.json lists it.
type SummaryRun struct {
	Name    string    `json:"name"`
	Variant string    `json:"variant,omitempty"`
	Seed    seed.Seed `json:"seed"`
	Dir     string    `json:"dir"`
	Expect  string    `json:"expect"`
	Met     bool      `json:"met"`
	Why     string    `json:"why,omitempty"`
	// Error is a harness failure: the run has no verdict.
	Error  string `json:"error,omitempty"`
	Replay string `json:"replay,omitempty"`
}

// Campaign is a results directory: its summary and every run found in it.
type Campaign struct {
	Dir string
	// Summary is nil when the directory has no summary.json.
	Summary *Summary
	// Runs are the runs that loaded, ordered by scenario, variant and
	// seed.
	Runs []*Run
	// Failed are the runs that did not load, or failed before they could
	// write their files.
	Failed []LoadError
}

// LoadError is a run that could not be loaded.
type LoadError struct {
	// Dir is the run's directory relative to the results directory.
	Dir string
	Err error
}

func (e LoadError) Error() string { return e.Err.Error() }

// Err returns nil when every run loaded, and otherwise one error listing
// those that did not.
func (c *Campaign) Err() error {
	var errs []error
	for _, f := range c.Failed {
		errs = append(errs, f.Err)
	}
	return errors.Join(errs...)
}

// LoadDir loads the results directory dir: summary.json, if there is one,
// and every run directory under it (one holding a result.json). Runs that
// do not load are listed in Failed, each with the file and what is wrong;
// the error is for dir itself or its summary.json only.
func LoadDir(dir string) (*Campaign, error) {
	if fi, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("reports: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("reports: %s is not a directory", dir)
	}
	c := &Campaign{Dir: dir}
	sp := filepath.Join(dir, "summary.json")
	if _, err := os.Stat(sp); err == nil {
		var s Summary
		if err := readJSONLoose(sp, "summary.json", &s); err != nil {
			// The runs are still worth rendering.
			c.Failed = append(c.Failed, LoadError{Dir: ".", Err: err})
		} else {
			c.Summary = &s
		}
	}
	var dirs []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (d.Name() == resultFile || d.Name() == historyFile) {
			rel, _ := filepath.Rel(dir, filepath.Dir(path))
			if len(dirs) == 0 || dirs[len(dirs)-1] != rel {
				dirs = append(dirs, rel)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reports: %w", err)
	}
	slices.Sort(dirs)
	dirs = slices.Compact(dirs)
	loaded := map[string]bool{}
	for _, rel := range dirs {
		loaded[rel] = true
		r, err := loadRun(filepath.Join(dir, rel), filepath.ToSlash(rel))
		if err == nil {
			r.Variant = variantOf(filepath.ToSlash(rel))
		}
		if err != nil {
			c.Failed = append(c.Failed, LoadError{Dir: filepath.ToSlash(rel), Err: err})
			continue
		}
		c.Runs = append(c.Runs, r)
	}
	if c.Summary != nil {
		for _, o := range c.Summary.Runs {
			if loaded[filepath.FromSlash(o.Dir)] {
				continue
			}
			why := "its directory has no " + resultFile
			if o.Error != "" {
				why = "harness failure: " + o.Error
			}
			c.Failed = append(c.Failed, LoadError{Dir: o.Dir, Err: fmt.Errorf("reports: %s (%s seed %s): %s", o.Dir, o.Name, o.Seed, why)})
		}
	}
	slices.SortStableFunc(c.Runs, func(a, b *Run) int {
		if n := strings.Compare(a.Label(), b.Label()); n != 0 {
			return n
		}
		return cmp.Compare(a.Result.Scenario.Seed, b.Result.Scenario.Seed)
	})
	return c, nil
}

// readJSONLoose reads a versioned JSON file, ignoring unknown fields.
func readJSONLoose(path, name string, v any) error {
	b, err := readVersioned(path, name, summaryVersion)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("reports: %s: %w", name, explainJSON(b, err))
	}
	return nil
}

package results_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/scenarios/results"
)

func TestReadDirGood(t *testing.T) {
	d, err := results.ReadDir(filepath.Join("testdata", "golden"))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Err(); err != nil {
		t.Fatal(err)
	}
	if d.Summary == nil || d.Summary.Campaign == "" || len(d.Runs) != 1 {
		t.Fatalf("read summary %+v and %d runs; want the golden campaign's summary and its 1 run", d.Summary, len(d.Runs))
	}
	r := d.Runs[0]
	if r.Dir != goldenRun || r.Variant != "golden" || r.Label() != "lock/unfenced/pause-holder[golden]" {
		t.Errorf("run %s, variant %q, label %s; want %s, golden, lock/unfenced/pause-holder[golden]", r.Dir, r.Variant, r.Label(), goldenRun)
	}
}

// TestReadDirEach reads the golden directory handing each run over: the
// run comes with its history, what each leaves of it is what Runs holds,
// and a run each refuses is listed in Failed with each's error.
func TestReadDirEach(t *testing.T) {
	dir := filepath.Join("testdata", "golden")
	var seen []string
	d, err := results.ReadDirEach(dir, func(r *results.Run) error {
		seen = append(seen, r.Dir)
		if len(r.History.Ops) == 0 {
			t.Errorf("run %s handed over without its history", r.Dir)
		}
		r.History.Ops = nil
		return nil
	})
	if err != nil || d.Err() != nil {
		t.Fatal(err, d.Err())
	}
	if len(seen) != 1 || seen[0] != goldenRun || len(d.Runs) != 1 || d.Runs[0].History.Ops != nil {
		t.Fatalf("handed over %v and kept %d runs; want %s once, kept as each left it", seen, len(d.Runs), goldenRun)
	}
	refused := errors.New("no page for this run")
	d, err = results.ReadDirEach(dir, func(*results.Run) error { return refused })
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Runs) != 0 || len(d.Failed) != 1 || !errors.Is(d.Failed[0].Err, refused) || d.Failed[0].Dir != goldenRun {
		t.Errorf("each refused the run: Runs %d, Failed %v; want it in Failed with each's error", len(d.Runs), d.Failed)
	}
}

// TestReadDirBadInput breaks a results directory in each way it can come
// broken: a truncated file, a foreign file, a file of a newer version,
// runs of two campaigns. Each run it does not read is in Failed with an
// error naming the file or directory, never silently left out; a
// directory it cannot read at all is an error naming the file.
func TestReadDirBadInput(t *testing.T) {
	other := "lock-unfenced-pause-holder/other/seed-1" // the golden run, as a variant the summary does not list
	tests := []struct {
		name    string
		spoil   func(t *testing.T, dir string)
		failed  string   // the run directory reported as not read
		want    []string // substrings of its error
		dirErr  bool     // ReadDir itself fails
		runsOut int      // runs read
	}{
		{"truncated result", func(t *testing.T, dir string) { truncate(t, filepath.Join(dir, goldenRun, results.ResultFile), 0.4) },
			goldenRun, []string{goldenRun + "/result.json: truncated"}, false, 0},
		{"truncated history", func(t *testing.T, dir string) { truncate(t, filepath.Join(dir, goldenRun, results.HistoryFile), 0.6) },
			goldenRun, []string{goldenRun + "/history.json: truncated"}, false, 0},
		{"truncated summary", func(t *testing.T, dir string) { truncate(t, filepath.Join(dir, results.SummaryFile), 0.5) },
			".", []string{"summary.json: truncated"}, false, 1},
		{"foreign file in a run's place", func(t *testing.T, dir string) {
			copyFile(t, filepath.Join(dir, goldenRun, results.ScenarioFile), filepath.Join(dir, goldenRun, results.ResultFile))
		}, goldenRun, []string{goldenRun + "/result.json", `unknown field "name"`}, false, 0},
		{"another run's files", func(t *testing.T, dir string) {
			moveRun(t, dir, goldenRun, "lock-mutex-leader-kill/golden/seed-1")
			replace(t, filepath.Join(dir, results.SummaryFile), `"dir": "`+goldenRun, `"dir": "lock-mutex-leader-kill/golden/seed-1`)
		}, "lock-mutex-leader-kill/golden/seed-1", []string{"holds a run of lock/unfenced/pause-holder seed 1, which belongs in " + goldenRun}, false, 0},
		{"a directory not of the layout", func(t *testing.T, dir string) { moveRun(t, dir, goldenRun, "stray/"+goldenRun) },
			"stray/" + goldenRun, []string{"is not where a run goes"}, false, 0},
		{"newer result", func(t *testing.T, dir string) {
			replace(t, filepath.Join(dir, goldenRun, results.ResultFile), `"version": 1`, `"version": 99`)
		}, goldenRun, []string{goldenRun + "/result.json has version 99; this etcdsim reads versions up to " + strconv.Itoa(scenarios.SchemaVersion)}, false, 0},
		{"newer summary", func(t *testing.T, dir string) {
			replace(t, filepath.Join(dir, results.SummaryFile), `"version": `+strconv.Itoa(results.SummaryVersion), `"version": 9`)
		}, "", []string{"summary.json has version 9; this etcdsim reads versions up to " + strconv.Itoa(results.SummaryVersion)}, true, 0},
		{"runs of two campaigns", func(t *testing.T, dir string) {
			if err := os.CopyFS(filepath.Join(dir, other), os.DirFS(filepath.Join(dir, goldenRun))); err != nil {
				t.Fatal(err)
			}
		}, other, []string{other + " is not among the runs summary.json lists (of campaign a0690db97fca45ce)"}, false, 1},
		{"a listed run without its directory", func(t *testing.T, dir string) {
			if err := os.RemoveAll(filepath.Join(dir, goldenRun)); err != nil {
				t.Fatal(err)
			}
		}, goldenRun, []string{"lock/unfenced/pause-holder[golden] seed 1", "its directory has no result.json"}, false, 0},
		{"a run that started and was cut short", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, goldenRun, results.ResultFile))
			os.Remove(filepath.Join(dir, goldenRun, results.HistoryFile))
		}, goldenRun, []string{goldenRun + ": the run started but left no result.json: it was interrupted"}, false, 0},
		{"a listed run that failed its harness", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, goldenRun, results.ResultFile))
			replace(t, filepath.Join(dir, results.SummaryFile), `"met": true,`, `"met": false, "error": "the child process 42 was killed by signal 9",`)
		}, goldenRun, []string{"no verdict: the child process 42 was killed by signal 9"}, false, 0},
		{"a run's directory", func(t *testing.T, dir string) {
			if err := os.CopyFS(filepath.Join(dir, "x"), os.DirFS(filepath.Join(dir, goldenRun))); err != nil {
				t.Fatal(err)
			}
			os.Rename(filepath.Join(dir, "x", results.ResultFile), filepath.Join(dir, results.ResultFile))
		}, "", []string{"it is a run's directory, not a results directory"}, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := copyGolden(t)
			tt.spoil(t, dir)
			d, err := results.ReadDir(dir)
			if tt.dirErr {
				if err == nil {
					t.Fatal("ReadDir read it; want an error")
				}
				for _, w := range tt.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("ReadDir = %v\nwant it to say %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Runs) != tt.runsOut {
				t.Errorf("read %d runs, want %d", len(d.Runs), tt.runsOut)
			}
			var found *results.RunError
			for i, f := range d.Failed {
				if f.Dir == tt.failed {
					found = &d.Failed[i]
				}
			}
			if found == nil {
				t.Fatalf("Failed = %v; want %s in it", d.Failed, tt.failed)
			}
			for _, w := range tt.want {
				if !strings.Contains(found.Err.Error(), w) {
					t.Errorf("%s: %v\nwant it to say %q", found.Dir, found.Err, w)
				}
			}
			if err := d.Err(); err == nil || !errors.Is(err, found.Err) {
				t.Errorf("Err() = %v, want it to hold %v", err, found.Err)
			}
		})
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// moveRun moves the run directory from to to, both relative to dir.
func moveRun(t *testing.T, dir, from, to string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, to)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, from), filepath.Join(dir, to)); err != nil {
		t.Fatal(err)
	}
}

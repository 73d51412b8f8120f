package results_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/scenarios/results"
)

// TestReadRunRefuses breaks a copy of a good run directory in each way a
// file can be broken, and checks that ReadRun names the file, says what
// is wrong, and wraps what a caller tells apart: a missing file, a
// truncated one, a newer version.
func TestReadRunRefuses(t *testing.T) {
	const (
		result  = results.ResultFile
		history = results.HistoryFile
	)
	tests := []struct {
		name  string
		spoil func(t *testing.T, dir string)
		want  []string // substrings of the error
		is    error    // what the error wraps, if anything in particular
	}{
		{"missing history", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, history)) },
			[]string{"history.json is missing"}, fs.ErrNotExist},
		{"missing result", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, result)) },
			[]string{"result.json is missing"}, fs.ErrNotExist},
		{"truncated result", func(t *testing.T, dir string) { truncate(t, filepath.Join(dir, result), 0.5) },
			[]string{"result.json: truncated: the JSON ends early"}, results.ErrTruncated},
		{"truncated history", func(t *testing.T, dir string) { truncate(t, filepath.Join(dir, history), 0.3) },
			[]string{"history.json: truncated"}, results.ErrTruncated},
		{"empty result", func(t *testing.T, dir string) { truncate(t, filepath.Join(dir, result), 0) },
			[]string{"result.json is empty"}, results.ErrTruncated},
		{"malformed result", func(t *testing.T, dir string) {
			replace(t, filepath.Join(dir, result), `"met": true,`, `"met": true,,`)
		},
			[]string{"result.json: malformed JSON at line"}, nil},
		{"unknown field", func(t *testing.T, dir string) {
			replace(t, filepath.Join(dir, result), `"met": true,`, `"met": true, "mett": 1,`)
		}, []string{"result.json", `unknown field "mett"`}, nil},
		{"wrong type", func(t *testing.T, dir string) { replace(t, filepath.Join(dir, result), `"ops": 66`, `"ops": "many"`) },
			[]string{"result.json", `field "ops"`, "JSON string where a int belongs"}, nil},
		{"trailing data", func(t *testing.T, dir string) { replace(t, filepath.Join(dir, result), "\n}\n", "\n}\n{}\n") },
			[]string{"result.json: data after the JSON document"}, nil},
		{"newer result", func(t *testing.T, dir string) {
			replace(t, filepath.Join(dir, result), `"version": 1`, `"version": 99`)
		},
			[]string{"result.json has version 99; this etcdsim reads versions up to " + strconv.Itoa(scenarios.SchemaVersion)}, nil},
		{"newer history", func(t *testing.T, dir string) {
			replace(t, filepath.Join(dir, history), `{"version":`+strconv.Itoa(checker.HistoryVersion), `{"version":9`)
		},
			[]string{"history.json has version 9; this etcdsim reads versions up to " + strconv.Itoa(checker.HistoryVersion)}, nil},
		{"op counted wrong", func(t *testing.T, dir string) { replace(t, filepath.Join(dir, result), `"ops": 66`, `"ops": 67`) },
			[]string{"history.json", "66 operations, but result.json counts 67"}, nil},
		{"violation names a missing op", func(t *testing.T, dir string) {
			replace(t, filepath.Join(dir, result), `"id": 39,`, `"id": 99999,`)
		}, []string{"history.json", "names operation 99999, which is not in the history"}, nil},
		{"history of another seed", func(t *testing.T, dir string) { replace(t, filepath.Join(dir, history), `"seed":"1"`, `"seed":"2"`) },
			[]string{"history of seed 2 beside a result of seed 1"}, nil},
		{"hand-edited verdict", func(t *testing.T, dir string) {
			replace(t, filepath.Join(dir, result), `"verdict": "violation",`, `"verdict": "passed",`)
		},
			[]string{"result.json", `"passed"`}, nil},
		{"hand-edited verdict, valid word", func(t *testing.T, dir string) {
			replace(t, filepath.Join(dir, result), `"verdict": "violation",`, `"verdict": "ok",`)
		},
			[]string{"result.json", "but its checks combine to", "edited by hand"}, nil},
		{"invalid history", func(t *testing.T, dir string) {
			replace(t, filepath.Join(dir, history), `"outcome":"ok"`, `"outcome":"maybe"`)
		},
			[]string{"history.json", "invalid history", `outcome "maybe"`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(copyGolden(t), goldenRun)
			tt.spoil(t, dir)
			_, err := results.ReadRun(dir)
			if err == nil {
				t.Fatal("ReadRun = nil, want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("ReadRun = %v\nwant it to say %q", err, w)
				}
			}
			if !strings.Contains(err.Error(), dir) {
				t.Errorf("ReadRun = %v, want it to name a file in %s", err, dir)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("ReadRun = %v, want it to wrap %v", err, tt.is)
			}
			// Only a file that ends early is truncated: a whole file
			// that is wrong is not called so.
			if truncated := tt.is == results.ErrTruncated; truncated != errors.Is(err, results.ErrTruncated) || !truncated && strings.Contains(err.Error(), "truncated") {
				t.Errorf("ReadRun = %v: truncated exactly for a file that ends early", err)
			}
			var v *results.VersionError
			if strings.HasPrefix(tt.name, "newer") != errors.As(err, &v) {
				t.Errorf("ReadRun = %v (%T): a *VersionError exactly for a newer file", err, err)
			}
		})
	}
}

func TestReadRunGood(t *testing.T) {
	r, err := results.ReadRun(filepath.Join("testdata", "golden", goldenRun))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(r.History.Ops), r.Result.Ops; got != want || got == 0 {
		t.Errorf("read %d operations, want %d", got, want)
	}
	if r.Result.Verdict.String() != "violation" || !r.Result.Met {
		t.Errorf("read verdict %s, met %v; want the violation the run expected", r.Result.Verdict, r.Result.Met)
	}
}

// A newer summary.json or scenario.json is refused the same way, naming
// the file and both versions; so is a scenario file with a misspelt
// field, trailing data or a bad duration.
func TestReadSummaryAndScenarioRefuse(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tt := range []struct {
		name string
		read func(path string) error
		body string
		want string
	}{
		{"newer summary", readSummary, `{"version": 99, "command": "run", "runs": []}`, "summary.json has version 99; this etcdsim reads versions up to " + strconv.Itoa(results.SummaryVersion)},
		{"summary with a field of a newer etcdsim", readSummary, `{"version": 2, "command": "run", "stars": 5}`, `unknown field "stars"`},
		{"truncated summary", readSummary, `{"version": 2, "command": "ca`, "summary.json: truncated"},
		{"newer scenario", readScenario, `{"version":99,"name":"x"}`, "scenario.json has version 99; this etcdsim reads versions up to " + strconv.Itoa(scenarios.SchemaVersion)},
		{"misspelt scenario field", readScenario, `{"version":1,"name":"x","workload":{"family":"lock","recipe":"mutex","clinets":3}}`, `unknown field "clinets"`},
		{"scenario with trailing data", readScenario, `{"version":1,"name":"x"} {}`, "data after the JSON document"},
		{"scenario with a bad duration", readScenario, `{"version":1,"name":"x","workload":{"family":"lock","duration":"ten seconds"}}`, `duration "ten seconds"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			name := results.SummaryFile
			if strings.Contains(tt.name, "scenario") {
				name = results.ScenarioFile
			}
			p := write(name, tt.body)
			err := tt.read(p)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), p) {
				t.Errorf("reading %s: %v\nwant an error naming the file and saying %q", tt.body, err, tt.want)
			}
		})
	}
}

func readSummary(path string) error  { _, err := results.ReadSummary(path); return err }
func readScenario(path string) error { _, err := results.ReadScenario(path); return err }

// Every registered scenario round-trips through its file: what a
// scenario.json or result.json says ran is what runs again.
func TestScenarioRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for i, s := range scenarios.All() {
		p := filepath.Join(dir, filepath.Base(results.RunDir(s.Name, "", s.Seed))+"-"+string(rune('a'+i%26))+".json")
		if err := results.WriteScenario(p, s); err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		back, err := results.ReadScenario(p)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		again := p + ".again"
		if err := results.WriteScenario(again, back); err != nil {
			t.Fatal(err)
		}
		a, _ := os.ReadFile(p)
		b, _ := os.ReadFile(again)
		if string(a) != string(b) {
			t.Errorf("%s: the scenario changed in a round trip through %s", s.Name, p)
		}
	}
}

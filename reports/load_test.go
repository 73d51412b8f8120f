package reports_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etcdsim/etcdsim/reports"
)

const goodRun = "testdata/results/lock-shared-session-healthy/seed-1"

// TestLoadRunErrors breaks a copy of a good run directory in each way a
// file can be broken, and checks that LoadRun names the file and says
// what is wrong.
func TestLoadRunErrors(t *testing.T) {
	edit := func(file, old, new string) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			t.Helper()
			p := filepath.Join(dir, file)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(b, []byte(old)) {
				t.Fatalf("%s has no %q to replace", file, old)
			}
			if err := os.WriteFile(p, bytes.Replace(b, []byte(old), []byte(new), 1), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	tests := []struct {
		name  string
		spoil func(t *testing.T, dir string)
		want  []string // substrings of the error
	}{
		{"missing history", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "history.json")) },
			[]string{"history.json is missing"}},
		{"missing result", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "result.json")) },
			[]string{"result.json is missing"}},
		{"truncated result", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "result.json")
			b, _ := os.ReadFile(p)
			os.WriteFile(p, b[:len(b)/2], 0o644)
		}, []string{"result.json: truncated"}},
		{"truncated history", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "history.json")
			b, _ := os.ReadFile(p)
			os.WriteFile(p, b[:len(b)/3], 0o644)
		}, []string{"history.json: truncated"}},
		{"empty result", func(t *testing.T, dir string) { os.WriteFile(filepath.Join(dir, "result.json"), nil, 0o644) },
			[]string{"result.json is empty"}},
		{"malformed result", edit("result.json", `"met": true,`, `"met": true,,`),
			[]string{"result.json: malformed JSON at line"}},
		{"unknown field", edit("result.json", `"met": true,`, `"met": true, "mett": 1,`),
			[]string{"result.json", `unknown field "mett"`}},
		{"wrong type", edit("result.json", `"ops": 384`, `"ops": "many"`),
			[]string{"result.json", `field "ops"`}},
		{"newer result", edit("result.json", `"version": 1`, `"version": 7`),
			[]string{"result.json has schema version 7", "up to 1"}},
		{"newer history", edit("history.json", `{"version":1`, `{"version":3`),
			[]string{"history.json has schema version 3"}},
		{"op counted wrong", edit("result.json", `"ops": 384`, `"ops": 385`),
			[]string{"history.json", "384 operations, but result.json counts 385"}},
		{"violation names a missing op", edit("result.json", `"id": 2,`, `"id": 99999,`),
			[]string{"history.json", "names operation 99999, which is not in the history"}},
		{"violation disagrees with the history", edit("result.json", `"client": "c1/2"`, `"client": "c9"`),
			[]string{"history.json", "violation names op", "but the history has"}},
		{"history of another seed", edit("history.json", `"seed":"1"`, `"seed":"2"`),
			[]string{"history of seed 2 beside a result of seed 1"}},
		{"invalid history", edit("history.json", `"outcome":"ok"`, `"outcome":"maybe"`),
			[]string{"history.json", "invalid history", `outcome "maybe"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := copyDir(t, goodRun)
			tt.spoil(t, dir)
			_, err := reports.LoadRun(dir)
			if err == nil {
				t.Fatal("LoadRun = nil, want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("LoadRun = %v\nwant it to say %q", err, w)
				}
			}
			if !strings.Contains(err.Error(), dir) {
				t.Errorf("LoadRun = %v, want it to name a file in %s", err, dir)
			}
		})
	}
}

func TestLoadRunGood(t *testing.T) {
	r, err := reports.LoadRun(goodRun)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(r.History.Ops), r.Result.Ops; got != want {
		t.Errorf("loaded %d operations, want %d", got, want)
	}
	if err := reports.RenderRun(copyDir(t, goodRun)); err != nil {
		t.Errorf("RenderRun: %v", err)
	}
}

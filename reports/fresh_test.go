package reports_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/reports"
)

// TestRenderDirDrawsOnlyStalePages renders a results directory twice, and
// between the two marks every run page: the second render must draw again
// a page older than its run's files and one another build drew, and leave
// the page that is up to date as it is.
func TestRenderDirDrawsOnlyStalePages(t *testing.T) {
	dir := copyDir(t, "testdata/results")
	// The run files are an hour old, so the pages drawn now are newer
	// whatever the file system's clock granularity.
	hourAgo := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return os.Chtimes(p, hourAgo, hourAgo)
	})
	if err != nil {
		t.Fatal(err)
	}
	_ = reports.RenderDir(dir) // the truncated run's error is TestRenderDirGolden's
	const marker = "<!-- marked between renders -->\n"
	pages := map[string]string{
		"fresh":       "lock-shared-session-healthy/seed-1/report.html",
		"older":       "lock-mutex-leader-kill/seed-1/report.html",
		"other build": "lock-shared-session-healthy/missed/seed-1/report.html",
	}
	for _, page := range pages {
		p := filepath.Join(dir, page)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("the first render drew no %s: %v", page, err)
		}
		if !strings.Contains(string(b), `<meta name="generator" content="etcdsim build `) {
			t.Fatalf("%s carries no stamp of the build that drew it", page)
		}
		if err := os.WriteFile(p, []byte(marker+string(b)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	older := filepath.Join(dir, pages["older"])
	if err := os.Chtimes(older, hourAgo.Add(-time.Minute), hourAgo.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, pages["other build"])
	b, _ := os.ReadFile(other)
	b = regexp.MustCompile(`content="etcdsim build [0-9a-f]+"`).ReplaceAll(b, []byte(`content="etcdsim build 000000"`))
	if err := os.WriteFile(other, b, 0o644); err != nil {
		t.Fatal(err)
	}

	_ = reports.RenderDir(dir)
	for why, page := range pages {
		b, err := os.ReadFile(filepath.Join(dir, page))
		if err != nil {
			t.Fatal(err)
		}
		if kept, want := strings.HasPrefix(string(b), marker), why == "fresh"; kept != want {
			t.Errorf("%s page %s: kept as it was = %v, want %v", why, page, kept, want)
		}
	}
	index, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil || !strings.Contains(string(index), "lock-shared-session-healthy/seed-1/report.html") {
		t.Errorf("the second render's index.html does not link the page it kept (err %v)", err)
	}
}

package reports_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/net/html"

	"github.com/etcdsim/etcdsim/reports"
	"github.com/etcdsim/etcdsim/scenarios"
)

// TestRenderFindings renders testdata/findings — a real exploration of
// lock/unfenced, moved from where it ran — and reads the page back as
// HTML: the headline counts the groups, and each group shows its judge
// and kind, sentence, smallest schedule and workload, seed, replay
// command, and a link to its smallest run's page, which links back.
func TestRenderFindings(t *testing.T) {
	dir := copyDir(t, "testdata/findings")
	if err := reports.RenderFindings(dir); err != nil {
		t.Fatal(err)
	}
	rep, err := scenarios.ReadExploreReport(dir)
	if err != nil {
		t.Fatal(err)
	}
	doc := parseHTML(t, filepath.Join(dir, reports.FindingsPage))
	want := "3 distinct ways lock unfenced breaks"
	if got := text(byID(doc, "headline")); got != want {
		t.Errorf("headline %q, want %q", got, want)
	}
	sections := all(doc, func(n *html.Node) bool { return n.Data == "section" && attr(n, "class") == "finding" })
	if len(sections) != len(rep.Groups) {
		t.Fatalf("%d finding sections, want one per group: %d", len(sections), len(rep.Groups))
	}
	for i, sec := range sections {
		g := rep.Groups[i]
		if attr(sec, "data-judge") != string(g.Judge) || attr(sec, "data-kind") != string(g.Kind) {
			t.Errorf("section %d is %s/%s, want %s/%s", i+1, attr(sec, "data-judge"), attr(sec, "data-kind"), g.Judge, g.Kind)
		}
		var shape []string
		for _, li := range all(sec, func(n *html.Node) bool { return n.Data == "li" && attr(n.Parent, "class") == "shape" }) {
			shape = append(shape, text(li))
		}
		if diff := cmp.Diff(g.Shape, shape); diff != "" {
			t.Errorf("section %d's smallest schedule (-want +got):\n%s", i+1, diff)
		}
		for class, want := range map[string]string{"sentence": g.Sentence, "workload": g.Workload, "seed": g.Seed.String(), "replay": g.Replay} {
			got := all(sec, func(n *html.Node) bool { return strings.Contains(" "+attr(n, "class")+" ", " "+class+" ") })
			if len(got) != 1 || text(got[0]) != want {
				t.Errorf("section %d's %s: %d elements, want one saying %q", i+1, class, len(got), want)
			}
		}
		links := all(sec, func(n *html.Node) bool { return n.Data == "a" && attr(n, "class") == "page" })
		if len(links) != 1 {
			t.Fatalf("section %d has %d links to its run's page, want 1", i+1, len(links))
		}
		href := attr(links[0], "href")
		if want := "smallest/" + filepath.Base(filepath.Dir(g.Page)) + "/report.html"; href != want {
			t.Errorf("section %d links to %q, want %q", i+1, href, want)
		}
		run, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(href)))
		if err != nil {
			t.Fatalf("section %d's run page: %v", i+1, err)
		}
		if !strings.Contains(string(run), `href="../../findings.html"`) {
			t.Errorf("the run page %s does not link back to the findings page", href)
		}
	}
}

// A findings page of an exploration that found nothing says so; one whose
// run is gone lists the group without a link and says which run is
// missing.
func TestRenderFindingsNothingAndMissingRun(t *testing.T) {
	dir := copyDir(t, "testdata/findings")
	if err := os.RemoveAll(filepath.Join(dir, "smallest", "000008")); err != nil {
		t.Fatal(err)
	}
	err := reports.RenderFindings(dir)
	if err == nil || !strings.Contains(err.Error(), "group 2") || !strings.Contains(err.Error(), "000008") {
		t.Errorf("RenderFindings with a run gone = %v, want an error naming group 2 and its run", err)
	}
	doc := parseHTML(t, filepath.Join(dir, reports.FindingsPage))
	if n := len(all(doc, func(n *html.Node) bool { return n.Data == "a" && attr(n, "class") == "page" })); n != 2 {
		t.Errorf("%d links to run pages, want 2: the group whose run is gone has none", n)
	}

	empty := t.TempDir()
	b, _ := os.ReadFile(filepath.Join(dir, scenarios.ExploreFindingsFile))
	b = []byte(strings.Replace(string(b), `"findings": 4`, `"findings": 0`, 1))
	b = []byte(string(b[:strings.Index(string(b), `"groups"`)]) + `"groups": []}`)
	if err := os.WriteFile(filepath.Join(empty, scenarios.ExploreFindingsFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := reports.RenderFindings(empty); err != nil {
		t.Fatal(err)
	}
	if got := text(byID(parseHTML(t, filepath.Join(empty, reports.FindingsPage)), "headline")); got != "No way found for lock unfenced to break" {
		t.Errorf("headline of an exploration with no findings: %q", got)
	}
	if err := reports.RenderFindings(t.TempDir()); err == nil || !strings.Contains(err.Error(), "findings.json") {
		t.Errorf("RenderFindings of a directory with no exploration = %v, want an error naming findings.json", err)
	}
}

func parseHTML(t *testing.T, path string) *html.Node {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := html.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// all returns the nodes under n, n included, for which ok holds.
func all(n *html.Node, ok func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	for d := range n.Descendants() {
		if d.Type == html.ElementNode && ok(d) {
			out = append(out, d)
		}
	}
	return out
}

func byID(n *html.Node, id string) *html.Node {
	if got := all(n, func(n *html.Node) bool { return attr(n, "id") == id }); len(got) > 0 {
		return got[0]
	}
	return &html.Node{}
}

func attr(n *html.Node, name string) string {
	if n == nil {
		return ""
	}
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val
		}
	}
	return ""
}

// text is n's text, its spaces collapsed.
func text(n *html.Node) string {
	var b strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			b.WriteString(d.Data)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

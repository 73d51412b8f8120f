package checker

import (
	"go/ast"
	"go/parser"
	gotoken "go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestJudges holds every judge of the table to having all its parts, and
// to being shown, through its own entry, a history that violates each
// kind it reports (violationCases).
func TestJudges(t *testing.T) {
	seen := map[Name]bool{}
	for _, j := range Judges() {
		if j.Name == "" || seen[j.Name] {
			t.Errorf("judge %q: a name empty or listed twice", j.Name)
		}
		seen[j.Name] = true
		if j.Summary == "" {
			t.Errorf("%s: no summary", j.Name)
		}
		if j.Run == nil {
			t.Errorf("%s: nothing to run", j.Name)
		}
		if len(j.Reads) == 0 {
			t.Errorf("%s: reads no operation kind", j.Name)
		}
		for i, k := range j.Reads {
			if !k.Known() || strings.HasPrefix(string(k), "x-") || slices.Contains(j.Reads[:i], k) {
				t.Errorf("%s reads %q: no kind of the package's, or listed twice", j.Name, k)
			}
		}
		if len(j.Reports) == 0 {
			t.Errorf("%s: reports no kind of violation", j.Name)
		}
		for i, k := range j.Reports {
			if k == "" || slices.Contains(j.Reports[:i], k) {
				t.Errorf("%s reports %q: empty or listed twice", j.Name, k)
			}
			if !slices.ContainsFunc(violationCases, func(c violationCase) bool { return c.judge == j.Name && c.want == k }) {
				t.Errorf("%s reports %s, but no violationCases history shows it one", j.Name, k)
			}
		}
		if lin := slices.Contains(j.Reports, ViolationNotLinearizable); lin != (j.Lin != nil) {
			t.Errorf("%s: reports %s is %v, but has a search to draw (Lin) is %v", j.Name, ViolationNotLinearizable, lin, j.Lin != nil)
		}
		if got, ok := LookupJudge(j.Name); !ok || got.Name != j.Name {
			t.Errorf("LookupJudge(%q) = %q, %v", j.Name, got.Name, ok)
		}
	}
	if diff := cmp.Diff(JudgeNames(), slices.Collect(func(yield func(Name) bool) {
		for _, j := range Judges() {
			if !yield(j.Name) {
				return
			}
		}
	})); diff != "" {
		t.Errorf("JudgeNames and Judges disagree (-names +judges):\n%s", diff)
	}
	for _, c := range violationCases {
		j, ok := LookupJudge(c.judge)
		if !ok || !slices.Contains(j.Reports, c.want) {
			t.Errorf("violationCases %q: %s is no judge that reports %s", c.name, c.judge, c.want)
		}
	}
}

// TestJudgesReadEveryKind: every kind of operation is read by some judge,
// except KindSession, which only faults and reports read.
func TestJudgesReadEveryKind(t *testing.T) {
	read := map[Kind]bool{}
	for _, j := range Judges() {
		for _, k := range j.Reads {
			read[k] = true
		}
	}
	for _, k := range Kinds() {
		if !read[k] && k != KindSession {
			t.Errorf("no judge reads %s", k)
		}
	}
}

// TestJudgesAreCopies: what Judges returns is the caller's to change.
func TestJudgesAreCopies(t *testing.T) {
	js := Judges()
	js[0].Name, js[0].Reads[0], js[0].Reports[0] = "changed", "changed", "changed"
	j := Judges()[0]
	if j.Name == "changed" || j.Reads[0] == "changed" || j.Reports[0] == "changed" {
		t.Errorf("changing what Judges returned changed the table: %+v", j)
	}
}

// TestLinJudgesRunTheirSearch: a linearizability judge's Run is the
// Result of its Lin.
func TestLinJudgesRunTheirSearch(t *testing.T) {
	for _, c := range violationCases {
		j, _ := LookupJudge(c.judge)
		if j.Lin == nil {
			continue
		}
		run, lin := j.Run(c.h, c.opts), j.Lin(c.h, LinOptions{})
		if diff := cmp.Diff(lin.Result, run, cmpEmptyMaps); diff != "" {
			t.Errorf("%s: Run and Lin's Result differ (-lin +run):\n%s", j.Name, diff)
		}
	}
}

// TestRunJudgeUnknown: a name that is no judge's is invalid, and the
// summary names the judges there are, the nearest first.
func TestRunJudgeUnknown(t *testing.T) {
	res := RunJudge("mutual-exclsion", History{}, JudgeOptions{})
	if res.Verdict != VerdictInvalid || res.Checker != "mutual-exclsion" || res.Invalid == nil {
		t.Fatalf("RunJudge of no judge = %+v, want invalid, named as asked, with an explanation", res)
	}
	const want = `no checker "mutual-exclsion" (want one of mutual-exclusion, `
	if !strings.HasPrefix(res.Summary, want) {
		t.Errorf("summary %q, want it to begin %q", res.Summary, want)
	}
	for _, n := range JudgeNames() {
		if !strings.Contains(res.Summary, string(n)) {
			t.Errorf("summary %q does not name %s", res.Summary, n)
		}
	}
	if _, ok := LookupJudge("mutual-exclsion"); ok {
		t.Error("LookupJudge found a judge of a name nobody has")
	}
}

// TestDocListsJudges: the package doc lists every judge, in the table's
// order, as "Func (name): summary", where Func is a function of the
// package and summary the judge's Summary; it lists nothing else.
func TestDocListsJudges(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := gotoken.NewFileSet()
	funcs := map[string]bool{}
	var doc string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if f.Doc != nil {
			doc = f.Doc.Text()
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
				funcs[fd.Name.Name] = true
			}
		}
	}
	item := regexp.MustCompile(`^(\w+) \(([a-z-]+)\): (.*)$`)
	var listed []Name
	for _, it := range docItems(doc) {
		m := item.FindStringSubmatch(it)
		if m == nil {
			t.Errorf("the package doc lists %q, not \"Func (name): summary\"", it)
			continue
		}
		listed = append(listed, Name(m[2]))
		j, ok := LookupJudge(Name(m[2]))
		switch {
		case !ok:
			t.Errorf("the package doc lists %s, which is no judge", m[2])
		case !funcs[m[1]]:
			t.Errorf("the package doc lists %s as %s, which is no function of the package", m[2], m[1])
		case m[3] != j.Summary:
			t.Errorf("the package doc says of %s %q, its Summary %q", m[2], m[3], j.Summary)
		}
	}
	if diff := cmp.Diff(JudgeNames(), listed); diff != "" {
		t.Errorf("the package doc's list of judges (-table +doc):\n%s", diff)
	}
}

// docItems returns the items of the doc's bulleted lists, each joined into
// one line.
func docItems(doc string) []string {
	var items []string
	in := false
	for _, line := range strings.Split(doc, "\n") {
		switch {
		case strings.HasPrefix(line, "  - "):
			items = append(items, strings.TrimPrefix(line, "  - "))
			in = true
		case in && strings.HasPrefix(line, "    "):
			items[len(items)-1] += " " + strings.TrimSpace(line)
		default:
			in = false
		}
	}
	return items
}

// TestReadmeListsJudges: the README's line for the checker package names
// every judge, and no name that is none.
func TestReadmeListsJudges(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var line string
	for l := range strings.SplitSeq(string(b), "\n") {
		if strings.HasPrefix(l, "| `checker/` |") {
			line = l
		}
	}
	if line == "" {
		t.Fatal("README.md has no line for `checker/`")
	}
	var named []Name
	for _, m := range regexp.MustCompile("`([a-z]+(?:-[a-z]+)*)`").FindAllStringSubmatch(line, -1) {
		named = append(named, Name(m[1]))
	}
	if diff := cmp.Diff(JudgeNames(), named); diff != "" {
		t.Errorf("README.md's line for checker/ names the judges (-table +README):\n%s\n%s", diff, line)
	}
}

package scenarios

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/internal/runfile"
	"github.com/etcdsim/etcdsim/seed"
)

// What became of one run of an exploration (ExploreRun.Outcome).
const (
	OutcomeClean         = "clean"          // judged, and every judge ok
	OutcomeFinding       = "finding"        // a judge found a violation
	OutcomeNotApplicable = "not-applicable" // the draw's fault could not apply to its cluster; no finding
	OutcomeRecipeFault   = "recipe-fault"   // the recipe panicked, hung or failed to close: its fault, recorded
	OutcomeHarness       = "harness"        // the harness failed; no verdict
	OutcomeStopped       = "stopped"        // the exploration was stopped during the run
	// OutcomeStarted is the journal's line for a run that began: a run
	// whose line has no end after it — the process died in it, a frozen
	// bubble, a kill -9 — is a harness failure on resume, and is not run
	// again.
	OutcomeStarted = "started"
)

// ExploreRun is one run of an exploration, as explore.jsonl has it.
type ExploreRun struct {
	Index        int                   `json:"index"`
	Draw         draw                  `json:"draw"`
	Shape        string                `json:"shape"`
	Outcome      string                `json:"outcome"`
	Judge        checker.Name          `json:"judge,omitempty"`
	Kind         checker.ViolationKind `json:"kind,omitempty"`
	Message      string                `json:"message,omitempty"`
	Note         string                `json:"note,omitempty"`
	RecipeFaults []string              `json:"recipe_faults,omitempty"`
	Dir          string                `json:"dir,omitempty"`
	Simulated    Duration              `json:"simulated,omitempty"`
	Wall         Duration              `json:"wall,omitempty"`
	Features     []string              `json:"features,omitempty"`
}

// ExploreReport is what an exploration found: its counts and its findings,
// grouped. findings.json holds it; findings.md says it in prose.
type ExploreReport struct {
	Version int       `json:"version"`
	Family  string    `json:"family"`
	Recipe  string    `json:"recipe"`
	Seed    seed.Seed `json:"seed"`
	Shard   int       `json:"shard"`
	Shards  int       `json:"shards"`
	Guided  bool      `json:"guided"`
	// Total counts the runs; the others count them by outcome.
	Total         int `json:"runs"`
	Findings      int `json:"findings"`
	NotApplicable int `json:"not_applicable"`
	RecipeFaults  int `json:"recipe_faults"`
	Harness       int `json:"harness"`
	// Kept counts the draws the guide kept for reaching something new.
	Kept int `json:"kept"`
	// FirstFinding is the number of runs up to and including the first
	// that found something, -1 if none did; FirstFindingAfter the wall
	// time of this sitting until then.
	FirstFinding      int      `json:"first_finding"`
	FirstFindingAfter Duration `json:"first_finding_after,omitempty"`
	Simulated         Duration `json:"simulated"`
	// CPU is the runs' wall time added up: with one run at a time, the
	// time the runs took; Elapsed is this sitting's wall time.
	CPU     Duration `json:"run_time"`
	Elapsed Duration `json:"elapsed"`
	// Groups are the distinct ways the recipe broke, each shrunk.
	Groups []FindingGroup `json:"groups"`
	// Runs are every run, in order.
	Runs []ExploreRun `json:"-"`

	prelim map[string]bool
}

// FindingGroup is one way a recipe breaks: the findings of one judge, one
// violation kind and one minimal shape.
type FindingGroup struct {
	Judge checker.Name          `json:"judge"`
	Kind  checker.ViolationKind `json:"kind"`
	// Shape is the smallest schedule found, one fault a line, as a
	// shrink lists them.
	Shape []string `json:"shape"`
	// Sentence says what happened, from the first violation's message.
	Sentence string `json:"sentence"`
	// Runs are the indices of the runs in the group; Seed is the first's.
	Runs []int     `json:"runs"`
	Seed seed.Seed `json:"seed"`
	// Draw is the first run's draw, in words.
	Draw string `json:"draw"`
	// Workload is the smallest failing run's workload and cluster, in
	// words: with Shape, the smallest reproduction.
	Workload string `json:"workload,omitempty"`
	// Replay replays the smallest failing run; Page is its result.json.
	Replay string `json:"replay,omitempty"`
	Page   string `json:"page,omitempty"`
	// Shrunk says how the shrink went: "3 faults → 1, 4 clients → 2 in 9 runs".
	Shrunk string `json:"shrunk,omitempty"`
}

// exploreReportVersion is the version of findings.json.
const exploreReportVersion = 1

// Err returns nil when the exploration found nothing, and otherwise an
// error with one line per group.
func (r *ExploreReport) Err() error {
	if len(r.Groups) == 0 && r.Findings == 0 {
		return nil
	}
	var errs []error
	for _, g := range r.Groups {
		errs = append(errs, fmt.Errorf("%s %s (%d runs; seed %s): %s\n  smallest: %v; %s\n  replay: %s", g.Judge, g.Kind, len(g.Runs), g.Seed, g.Sentence, g.Shape, g.Workload, g.Replay))
	}
	if len(errs) == 0 {
		errs = append(errs, fmt.Errorf("%d runs found violations", r.Findings))
	}
	return fmt.Errorf("scenarios: explore %s %s: %d distinct ways it breaks:\n%w", r.Family, r.Recipe, len(r.Groups), errors.Join(errs...))
}

// write writes findings.json and findings.md into dir.
func (r *ExploreReport) write(dir string) error {
	r.Version = exploreReportVersion
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("scenarios: explore: %w", err)
	}
	if err := runfile.WriteJSON(filepath.Join(dir, ExploreFindingsFile), r); err != nil {
		return err
	}
	return runfile.Write(filepath.Join(dir, "findings.md"), func(w io.Writer) error {
		_, err := w.Write([]byte(r.Markdown()))
		return err
	})
}

// Markdown is the findings summary a user reads first.
func (r *ExploreReport) Markdown() string {
	mode := "guided"
	if !r.Guided {
		mode = "uniform"
	}
	s := fmt.Sprintf("# %d distinct ways %s %s breaks\n\n", len(r.Groups), r.Family, r.Recipe)
	shards := ""
	switch {
	case r.Shards > 1 && r.Shard >= 0:
		shards = fmt.Sprintf(", shard %d of %d", r.Shard, r.Shards)
	case r.Shards > 1:
		shards = fmt.Sprintf(", %d shards merged", r.Shards)
	}
	s += fmt.Sprintf("%d runs (%s draws from seed %s%s), %v simulated in %v: %d found a violation, %d draws could not apply, %d recipe faults, %d harness failures.\n\n",
		r.Total, mode, r.Seed, shards, r.Simulated.D().Round(time.Second), r.Elapsed.D().Round(time.Second),
		r.Findings, r.NotApplicable, r.RecipeFaults, r.Harness)
	for i, g := range r.Groups {
		s += fmt.Sprintf("## %d. %s: %s\n\n%s\n\n", i+1, g.Judge, g.Kind, g.Sentence)
		s += fmt.Sprintf("- runs: %d (first: seed %s)\n- drawn as: %s\n", len(g.Runs), g.Seed, g.Draw)
		s += "- smallest reproduction:\n"
		if g.Workload != "" {
			s += "  - workload: " + g.Workload + "\n"
		}
		for _, l := range g.Shape {
			s += "  - " + l + "\n"
		}
		if g.Shrunk != "" {
			s += "- shrunk: " + g.Shrunk + "\n"
		}
		if g.Replay != "" {
			s += fmt.Sprintf("- replay: `%s`\n- page: %s\n", g.Replay, g.Page)
		}
		s += "\n"
	}
	return s
}

// journal is explore.jsonl: one line per run, appended as each ends, from
// which an interrupted exploration resumes.
type journal struct {
	f *os.File
}

// exploreHeader is the journal's first line: the configuration it belongs
// to. A resume under another configuration is refused.
type exploreHeader struct {
	Explore ExploreConfig `json:"explore"`
}

// openJournal opens cfg.Out's journal, and returns the runs it holds. A
// journal of another configuration is an error; a torn last line, left by
// a kill, is dropped and its run done again.
func openJournal(cfg ExploreConfig) (*journal, []ExploreRun, error) {
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, nil, fmt.Errorf("scenarios: explore: %w", err)
	}
	path := filepath.Join(cfg.Out, "explore.jsonl")
	want, _ := json.Marshal(exploreHeader{Explore: resumeKey(cfg)})
	var done []ExploreRun
	var keep int64
	if f, err := os.Open(path); err == nil {
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		first := true
		for sc.Scan() {
			line := sc.Bytes()
			if first {
				first = false
				if string(line) != string(want) {
					f.Close()
					return nil, nil, fmt.Errorf("%w: %s holds another exploration (%s); give another -out, or remove it", ErrExploreConfig, path, line)
				}
				keep += int64(len(line)) + 1
				continue
			}
			var r ExploreRun
			if json.Unmarshal(line, &r) != nil {
				break // a torn line: the run is done again
			}
			keep += int64(len(line)) + 1
			done = append(done, r)
		}
		f.Close()
	}
	done = settleStarted(done)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("scenarios: explore: %w", err)
	}
	if err := f.Truncate(keep); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("scenarios: explore: %w", err)
	}
	if _, err := f.Seek(keep, 0); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("scenarios: explore: %w", err)
	}
	if keep == 0 {
		if _, err := f.Write(append(want, '\n')); err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("scenarios: explore: %w", err)
		}
	}
	return &journal{f: f}, done, nil
}

// settleStarted turns the journal's lines into one per run: a run that
// started and ended is its end; one that started and never ended is a
// harness failure.
func settleStarted(lines []ExploreRun) []ExploreRun {
	var out []ExploreRun
	open := map[int]int{} // index → position in out
	for _, r := range lines {
		if i, ok := open[r.Index]; ok && r.Outcome != OutcomeStarted {
			out[i] = r
			delete(open, r.Index)
			continue
		}
		if r.Outcome == OutcomeStopped {
			continue
		}
		if r.Outcome == OutcomeStarted {
			r.Outcome, r.Note = OutcomeHarness, "the run began and never ended: the process died or was killed in it (a frozen bubble, kill -9); it is not run again"
			open[r.Index] = len(out)
		}
		out = append(out, r)
	}
	// A run stopped by a signal is run again: drop it.
	out = slices.DeleteFunc(out, func(r ExploreRun) bool { return r.Outcome == OutcomeStopped })
	slices.SortStableFunc(out, func(a, b ExploreRun) int { return a.Index - b.Index })
	return out
}

// resumeKey is the part of cfg a resumed exploration must share: what
// it draws from, not how long it runs.
func resumeKey(cfg ExploreConfig) ExploreConfig {
	return ExploreConfig{Family: cfg.Family, Recipe: cfg.Recipe, Seed: cfg.Seed, Shard: cfg.Shard, Shards: cfg.Shards,
		Guided: cfg.Guided, Space: cfg.Space, Clock: cfg.Clock}
}

func (j *journal) add(r ExploreRun) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if _, err := j.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("scenarios: explore: journal: %w", err)
	}
	return nil
}

func (j *journal) close() { j.f.Close() }

// ReadExploreRuns reads the runs of the journal in dir, for merge.
func ReadExploreRuns(dir string) (ExploreConfig, []ExploreRun, error) {
	f, err := os.Open(filepath.Join(dir, "explore.jsonl"))
	if err != nil {
		return ExploreConfig{}, nil, fmt.Errorf("scenarios: explore: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var hdr exploreHeader
	var runs []ExploreRun
	for first := true; sc.Scan(); first = false {
		if first {
			if err := json.Unmarshal(sc.Bytes(), &hdr); err != nil {
				return ExploreConfig{}, nil, fmt.Errorf("scenarios: explore: %s: not an exploration's journal: %w", dir, err)
			}
			continue
		}
		var r ExploreRun
		if json.Unmarshal(sc.Bytes(), &r) != nil {
			break
		}
		runs = append(runs, r)
	}
	return hdr.Explore, settleStarted(runs), sc.Err()
}

// MergeExplore merges the findings of the explorations in dirs — shards of
// one exploration — into out's findings.json and findings.md: counts
// added, groups of one judge, kind and smallest shape made one. Shards of
// different explorations are an error.
func MergeExplore(out string, dirs ...string) (*ExploreReport, error) {
	var m *ExploreReport
	for _, dir := range dirs {
		rp, err := ReadExploreReport(dir)
		if err != nil {
			return nil, fmt.Errorf("scenarios: explore merge: %w", err)
		}
		r := *rp
		if m == nil {
			c := r
			c.Groups = nil
			c.Total, c.Findings, c.NotApplicable, c.RecipeFaults, c.Harness, c.Kept = 0, 0, 0, 0, 0, 0
			c.Simulated, c.CPU, c.Elapsed, c.FirstFinding = 0, 0, 0, -1
			m = &c
		}
		if r.Family != m.Family || r.Recipe != m.Recipe || r.Seed != m.Seed || r.Shards != m.Shards {
			return nil, fmt.Errorf("scenarios: explore merge: %s explored %s %s from seed %s in %d shards, not %s %s from seed %s in %d",
				dir, r.Family, r.Recipe, r.Seed, r.Shards, m.Family, m.Recipe, m.Seed, m.Shards)
		}
		m.Total += r.Total
		m.Findings += r.Findings
		m.NotApplicable += r.NotApplicable
		m.RecipeFaults += r.RecipeFaults
		m.Harness += r.Harness
		m.Kept += r.Kept
		m.Simulated += r.Simulated
		m.CPU += r.CPU
		m.Elapsed = max(m.Elapsed, r.Elapsed)
		if r.FirstFinding >= 0 && (m.FirstFinding < 0 || r.FirstFinding < m.FirstFinding) {
			m.FirstFinding, m.FirstFindingAfter = r.FirstFinding, r.FirstFindingAfter
		}
		for _, g := range r.Groups {
			// A shard copied off where it ran (a CI artifact, a Job's
			// volume) holds its runs under its own directory now.
			if p := LocateExplorePage(dir, g.Page); p != "" && p != g.Page {
				g.Replay = strings.Replace(g.Replay, g.Page, p, 1)
				g.Page = p
			}
			m.Groups = mergeGroup(m.Groups, g)
		}
	}
	if m == nil {
		return nil, errors.New("scenarios: explore merge: no directories")
	}
	m.Shard = -1
	return m, m.write(out)
}

// ExploreFindingsFile is the findings summary an exploration writes into
// its directory (ExploreReport).
const ExploreFindingsFile = "findings.json"

// ReadExploreReport reads the findings summary of the exploration in dir.
func ReadExploreReport(dir string) (*ExploreReport, error) {
	b, err := os.ReadFile(filepath.Join(dir, ExploreFindingsFile))
	if err != nil {
		return nil, fmt.Errorf("scenarios: explore: %w (is %s a finished exploration?)", err, dir)
	}
	var r ExploreReport
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("scenarios: explore: %s: %w", dir, err)
	}
	return &r, nil
}

// LocateExplorePage finds the result.json a group's Page names, for the
// exploration in dir: page as written (relative to where the exploration
// ran), under dir, or — the directory moved since — its smallest/ or runs/
// part under dir. "" when it is in none of these places.
func LocateExplorePage(dir, page string) string {
	if page == "" {
		return ""
	}
	tries := []string{page, filepath.Join(dir, page)}
	slashed := filepath.ToSlash(page)
	for _, part := range []string{"smallest/", "runs/"} {
		if i := strings.LastIndex(slashed, part); i >= 0 {
			tries = append(tries, filepath.Join(dir, filepath.FromSlash(slashed[i:])))
		}
	}
	for _, p := range tries {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && filepath.Base(p) == runfile.ResultFile {
			return p
		}
	}
	return ""
}

// mergeGroup adds g to groups, into the group of the same judge, kind and
// shape if there is one.
func mergeGroup(groups []FindingGroup, g FindingGroup) []FindingGroup {
	for i, o := range groups {
		if o.Judge == g.Judge && o.Kind == g.Kind && slices.Equal(o.Shape, g.Shape) {
			groups[i].Runs = append(groups[i].Runs, g.Runs...)
			return groups
		}
	}
	return append(groups, g)
}

package scenarios

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etcdsim/etcdsim/election"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/recipes/barrier"
	"github.com/etcdsim/etcdsim/recipes/rwmutex"
	"github.com/etcdsim/etcdsim/seed"
)

// upstreamOf returns the registered upstream scenarios.
func upstreamOf(t *testing.T) []Scenario {
	t.Helper()
	list, err := Match("upstream/")
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// The upstream family is what its reports say: every scenario carries
// its evidence and the command that runs it, reproductions expect a
// violation and the rest a pass, each fix runs its reproduction's very
// schedule, every report has a reproduction or shows its fix upstream,
// every upstream recipe is run, and docs/upstream.md gives every command
// and report.
func TestUpstreamReports(t *testing.T) {
	list := upstreamOf(t)
	byName := map[string]Scenario{}
	reproduced := map[string]bool{}
	for _, s := range list {
		byName[s.Name] = s
		u := s.Upstream
		if u == nil {
			t.Errorf("%s: no upstream evidence", s.Name)
			continue
		}
		parts := strings.Split(s.Name, "/")
		if len(parts) != 3 {
			t.Errorf("%s: want upstream/<report>/<name>", s.Name)
			continue
		}
		r := report(parts[1])
		want := Upstream{Report: r.url, Status: r.status + "; " + r.note, API: r.api, Shows: u.Shows,
			ConfirmedOn: ConfirmedOn, Etcd: EtcdVersion(), Command: "go run ./cmd/simrun run " + s.Name}
		if *u != want {
			t.Errorf("%s: evidence %+v, want %+v", s.Name, *u, want)
		}
		switch u.Shows {
		case ShowsReport:
			if s.Expect.Pass() {
				t.Errorf("%s reproduces %s but expects a pass", s.Name, r.url)
			}
			reproduced[r.id] = true
		case ShowsFix, ShowsFixedUpstream, ShowsControl:
			if !s.Expect.Pass() {
				t.Errorf("%s shows %s but expects %v", s.Name, u.Shows, s.Expect)
			}
			if u.Shows == ShowsFixedUpstream {
				reproduced[r.id] = true
			}
		default:
			t.Errorf("%s: shows %q", s.Name, u.Shows)
		}
		if !strings.HasPrefix(s.Description, r.heading()+", ") {
			t.Errorf("%s: description %q does not begin with its report", s.Name, s.Description)
		}
	}
	for _, r := range upstreamReports {
		if !reproduced[r.id] {
			t.Errorf("report %s (%s) has no scenario that reproduces it or shows it fixed upstream", r.id, r.url)
		}
	}

	// A fix twin is its reproduction with the recipe changed: same
	// workload otherwise, same schedule, same checkers.
	for _, s := range list {
		if s.Upstream == nil || s.Upstream.Shows != ShowsFix {
			continue
		}
		// "<repro>-fixed" is the twin of <repro>; "fixed" of the
		// report's one reproduction.
		dir, base := filepath.Split(s.Name)
		repro, ok := byName[dir+strings.TrimSuffix(base, "-fixed")]
		if base == "fixed" {
			var repros []Scenario
			for _, o := range list {
				if strings.HasPrefix(o.Name, dir) && o.Upstream != nil && o.Upstream.Shows == ShowsReport {
					repros = append(repros, o)
				}
			}
			if ok = len(repros) == 1; ok {
				repro = repros[0]
			}
		}
		if !ok {
			t.Errorf("%s: no single reproduction to be the twin of", s.Name)
			continue
		}
		a, b := repro, s
		a.Workload.Recipe, b.Workload.Recipe = "", ""
		if diff := jsonDiff(t, a.Workload, b.Workload) + jsonDiff(t, a.Faults, b.Faults) + jsonDiff(t, a.Checkers, b.Checkers); diff != "" {
			t.Errorf("%s is not %s with the fix alone:\n%s", s.Name, repro.Name, diff)
		}
	}

	// Every upstream recipe runs in some upstream scenario, a broken one
	// as the reproduction of the report it names.
	used := map[string]Scenario{}
	for _, s := range list {
		used[s.Workload.Family+"/"+s.Workload.Recipe] = s
	}
	check := func(family, name string, broken bool, url string) {
		s, ok := used[family+"/"+name]
		switch {
		case !ok:
			t.Errorf("upstream %s recipe %s runs in no upstream scenario", family, name)
		case broken && (s.Upstream.Shows != ShowsReport || s.Upstream.Report != url):
			t.Errorf("broken %s recipe %s (%s) runs in %s, which shows %s of %s", family, name, url, s.Name, s.Upstream.Shows, s.Upstream.Report)
		}
	}
	for _, r := range lock.UpstreamRecipes() {
		check(FamilyLock, r.Name, r.Broken, r.Upstream)
	}
	for _, r := range election.UpstreamRecipes() {
		check(FamilyElection, r.Name, r.Broken, r.Upstream)
	}
	for _, r := range rwmutex.UpstreamRecipes() {
		check(FamilyRWMutex, r.Name, r.Broken, r.Upstream)
	}
	for _, r := range barrier.UpstreamPlainRecipes() {
		check(FamilyPlainBarrier, r.Name, r.Broken, r.Upstream)
	}
	for _, r := range barrier.UpstreamRecipes() {
		check(FamilyBarrier, r.Name, r.Broken, r.Upstream)
	}

	doc, err := os.ReadFile(filepath.Join("..", "docs", "upstream.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range list {
		if !strings.Contains(string(doc), s.Upstream.Command) {
			t.Errorf("docs/upstream.md does not give %s's command: %s", s.Name, s.Upstream.Command)
		}
	}
	for _, r := range upstreamReports {
		if r.url != "" && !strings.Contains(string(doc), r.url) {
			t.Errorf("docs/upstream.md does not link %s", r.url)
		}
	}
}

func jsonDiff(t *testing.T, a, b any) string {
	t.Helper()
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if string(ja) == string(jb) {
		return ""
	}
	return fmt.Sprintf("  reproduction: %s\n  fix:          %s\n", ja, jb)
}

// Every reproduction still meets its violation on the etcd of go.mod.
// When one stops, the report may have been fixed upstream: the failure
// says so, names both versions and the report. The fixes, controls and
// scenarios fixed upstream run in TestRegistered with every registered
// scenario; the reproductions run only here, where a miss says what it
// may mean.
func TestUpstreamReproduces(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every upstream reproduction against real clusters")
	}
	if raceDetector {
		// See race_sample_test.go: the registry's runs go without the
		// detector, and make test runs this test so.
		t.Skip("race detector on: the reproductions run without it (make test runs them); TestRecipeCloseEveryFamily and TestRecipeClose run every family under it")
	}
	etcd := etcdInGoMod(t)
	for _, s := range upstreamOf(t) {
		if s.Upstream == nil || s.Upstream.Shows != ShowsReport {
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			// Up to detectionSeeds seeds: a reproduction's rate, like a
			// pitfall's, is 19 of 20 or better, not certain on every seed.
			var r *Result
			for i := range detectionSeeds {
				c := s
				c.Seed = s.Seed + seed.Seed(i)
				var err error
				r, err = runUpstream(c, t.ArtifactDir(), goTestCommand(t))
				if err != nil {
					t.Fatal(err)
				}
				if r.Met {
					if i > 0 {
						t.Logf("%s: reproduced on seed %d, after %d seed(s) that missed it", s.Name, c.Seed, i)
					}
					return
				}
				t.Logf("%s seed %d: not reproduced: %s", s.Name, c.Seed, r.Why)
			}
			if etcd == s.Upstream.ConfirmedOn {
				t.Errorf("%s no longer reproduces %s on etcd %s, the version it was confirmed on: the harness or "+
					"the schedule changed, or the reproduction is flaky.\n%v", s.Name, s.Upstream.Report, etcd, r.Err())
				return
			}
			t.Errorf("%s no longer reproduces %s: go.mod requires etcd %s; the scenario was confirmed on %s. "+
				"The report may have been fixed upstream (its status was %q): read it, and if it was, make the "+
				"scenario expect a pass, show %q, and say so in docs/upstream.md.\n%v",
				s.Name, s.Upstream.Report, etcd, s.Upstream.ConfirmedOn, s.Upstream.Status, ShowsFixedUpstream, r.Err())
		})
	}
}

// runUpstream runs one seed of an upstream scenario, its files in a
// directory of their own under dir.
func runUpstream(s Scenario, dir, replay string) (*Result, error) {
	// Not t.Context: the run must heal and close its cluster.
	ctx, cancel := context.WithTimeout(context.Background(), budget(s))
	defer cancel()
	return Run(ctx, s, Options{Out: filepath.Join(dir, fmt.Sprintf("seed-%d", s.Seed)), Replay: replay})
}

// etcdInGoMod returns the version of go.etcd.io/etcd/client/v3 the module
// requires: from the build info if the binary has one, else from go.mod
// (a test binary carries no module list).
func etcdInGoMod(t *testing.T) string {
	t.Helper()
	if v := EtcdVersion(); v != "" {
		return v
	}
	f, err := os.Open(filepath.Join("..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(strings.TrimPrefix(strings.TrimSpace(sc.Text()), "require "))
		if len(fields) >= 2 && fields[0] == "go.etcd.io/etcd/client/v3" {
			return fields[1]
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Fatal("go.mod requires no go.etcd.io/etcd/client/v3")
	return ""
}

package simrun

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/scenarios/results"
)

// TestShardedCampaignAsItRuns runs a campaign the way a Kubernetes
// Indexed Job does: the simrun binary, once per shard, with -shard auto
// and the index in JOB_COMPLETION_INDEX; then simrun merge. The merged
// summary must hold exactly the campaign's runs, each once, with its
// files.
func TestShardedCampaignAsItRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds simrun and runs six real clusters")
	}
	childProcessTest(t)
	dir := t.TempDir()
	bin := buildSimrun(t, dir)
	file := filepath.Join(dir, "campaign.yaml")
	campaign := `scenarios: [lock/shared-session/healthy, election/modrevision/healthy]
seeds: [1, 2, 3]
`
	if err := os.WriteFile(file, []byte(campaign), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := readCampaign(file)
	if err != nil {
		t.Fatal(err)
	}
	all, err := c.expand(scenarios.All())
	if err != nil {
		t.Fatal(err)
	}
	hash, err := campaignHash(all)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, j := range all {
		want = append(want, j.dir())
	}
	slices.Sort(want)
	if len(want) != 6 {
		t.Fatalf("the campaign expands to %d runs, want 2 scenarios × 3 seeds: %q", len(want), want)
	}

	const shards = 3
	var shardDirs []string
	for i := range shards {
		out := filepath.Join(dir, "shard-"+strconv.Itoa(i))
		shardDirs = append(shardDirs, out)
		simrunProcess(t, bin, []string{"JOB_COMPLETION_INDEX=" + strconv.Itoa(i)},
			"campaign", "-f", file, "-shard", "auto", "-shards", strconv.Itoa(shards), "-parallel", "2", "-out", out)
	}
	merged := filepath.Join(dir, "merged")
	simrunProcess(t, bin, nil, append([]string{"merge", "-out", merged}, shardDirs...)...)

	sum, err := results.ReadSummary(filepath.Join(merged, results.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range sum.Runs {
		got = append(got, r.Dir)
		if _, err := os.Stat(filepath.Join(merged, r.Dir, results.ResultFile)); err != nil {
			t.Errorf("merged run %s: %v", r.Dir, err)
		}
		if r.Process == nil || r.Process.Goroutines == 0 {
			t.Errorf("merged run %s: no process stats: %+v", r.Dir, r.Process)
		}
		if r.Process != nil && r.Process.CPU <= 0 {
			t.Errorf("merged run %s: its child process's CPU time is %v, want more than none", r.Dir, r.Process.CPU)
		}
	}
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("merged runs differ from the campaign's (-want +got):\n%s", diff)
	}
	if sum.Campaign != hash || sum.CampaignRuns != len(all) || len(sum.Shards) != shards {
		t.Errorf("merged summary: campaign %s of %d runs in %d shards; want campaign %s of %d runs in %d shards",
			sum.Campaign, sum.CampaignRuns, len(sum.Shards), hash, len(all), shards)
	}
}

// buildSimrun builds the simrun command into dir and returns its path.
func buildSimrun(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "simrun")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/etcdsim/etcdsim/cmd/simrun")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build simrun: %v\n%s", err, out)
	}
	return bin
}

// simrunProcess runs the simrun binary with args and env added to the
// test's environment. A run that missed its expectation (exit 1) is
// logged, not failed: on a loaded machine a pitfall may stay hidden, and
// what is tested is which runs ran. Any other failure fails the test.
func simrunProcess(t *testing.T, bin string, env []string, args ...string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		t.Logf("simrun %s: exit 1 (a run missed its expectation)\n%s", strings.Join(args, " "), &stdout)
	default:
		t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", fmt.Sprint(append([]string{"simrun"}, args...)), err, &stdout, &stderr)
	}
}

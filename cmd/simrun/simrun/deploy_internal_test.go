package simrun

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/etcdsim/etcdsim/scenarios"
)

// deployDir holds the Dockerfile, the Kubernetes Job, the GitHub Actions
// workflow and the example campaign.
var deployDir = filepath.Join("..", "..", "..", "deploy")

// TestDeployCampaign checks that the example campaign reads, expands
// and validates as simrun campaign would before it starts a cluster.
func TestDeployCampaign(t *testing.T) {
	c, err := readCampaign(filepath.Join(deployDir, "campaign.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := c.expand(scenarios.All())
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) == 0 {
		t.Fatal("the example campaign has no runs")
	}
	t.Logf("deploy/campaign.yaml: %d runs", len(jobs))
	if err := validateJobs(jobs); err != nil {
		t.Fatal(err)
	}
}

type volume struct {
	Name      string `yaml:"name"`
	ConfigMap *struct {
		Name string `yaml:"name"`
	} `yaml:"configMap"`
}

// indexedJob is what the test reads of a Kubernetes Job.
type indexedJob struct {
	Kind string `yaml:"kind"`
	Spec struct {
		CompletionMode       string `yaml:"completionMode"`
		Completions          int    `yaml:"completions"`
		Parallelism          int    `yaml:"parallelism"`
		BackoffLimitPerIndex *int   `yaml:"backoffLimitPerIndex"`
		PodReplacementPolicy string `yaml:"podReplacementPolicy"`
		PodFailurePolicy     struct {
			Rules []podFailureRule `yaml:"rules"`
		} `yaml:"podFailurePolicy"`
		Template struct {
			Spec struct {
				RestartPolicy string `yaml:"restartPolicy"`
				Containers    []struct {
					Name         string   `yaml:"name"`
					Args         []string `yaml:"args"`
					VolumeMounts []struct {
						Name      string `yaml:"name"`
						MountPath string `yaml:"mountPath"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
				Volumes []volume `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// podFailureRule is one rule of a Job's pod failure policy.
type podFailureRule struct {
	Action      string `yaml:"action"`
	OnExitCodes *struct {
		Operator string `yaml:"operator"`
		Values   []int  `yaml:"values"`
	} `yaml:"onExitCodes"`
	OnPodConditions []struct {
		Type string `yaml:"type"`
	} `yaml:"onPodConditions"`
}

// action is what the policy does with a pod that exited with code, or
// that had condition ("" for none): the first rule that matches, or
// "Count" (the default: a retry, up to the index's backoff limit).
func action(rules []podFailureRule, code int, condition string) string {
	for _, r := range rules {
		if e := r.OnExitCodes; e != nil && condition == "" && slices.Contains(e.Values, code) == (e.Operator == "In") {
			return r.Action
		}
		for _, c := range r.OnPodConditions {
			if c.Type == condition {
				return r.Action
			}
		}
	}
	return "Count"
}

func TestDeployKubernetesJob(t *testing.T) {
	if err := checkKubernetesJob(filepath.Join(deployDir, "k8s", "campaign-job.yaml")); err != nil {
		t.Error(err)
	}
}

// checkKubernetesJob reads the manifest's documents and checks its Job:
// indexed, one pod per shard, each running simrun campaign -shard auto
// on the campaign file of a ConfigMap, into a directory of its index.
func checkKubernetesJob(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	dec := yaml.NewDecoder(f)
	var jobs []indexedJob
	for {
		var doc indexedJob
		if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if doc.Kind == "Job" {
			jobs = append(jobs, doc)
		}
	}
	if len(jobs) != 1 {
		return fmt.Errorf("%s: %d Jobs, want 1", path, len(jobs))
	}
	j := jobs[0].Spec
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if j.CompletionMode != "Indexed" {
		fail("completionMode %q, want Indexed", j.CompletionMode)
	}
	if j.Completions < 1 || j.Parallelism != j.Completions {
		fail("completions %d, parallelism %d: want both the shard count", j.Completions, j.Parallelism)
	}
	// A failed shard is retried in place, and resumes its directory.
	if j.BackoffLimitPerIndex == nil || *j.BackoffLimitPerIndex < 1 {
		fail("backoffLimitPerIndex %v: want at least 1, so that a shard whose pod failed is retried", j.BackoffLimitPerIndex)
	}
	if j.PodReplacementPolicy != "Failed" {
		fail("podReplacementPolicy %q, want Failed: a retry must not write a shard's directory beside a pod still terminating", j.PodReplacementPolicy)
	}
	for _, c := range []struct {
		what      string
		code      int
		condition string
		want      string
	}{
		{"a bad campaign file or -out (exit 2)", exitUsage, "", "FailJob"},
		{"a shard that missed an expectation (exit 1)", exitMissed, "", "FailIndex"},
		{"a pod stopped by SIGTERM (exit 130)", exitInterrupted, "", "Count"},
		{"an OOM-killed pod (exit 137)", 137, "", "Count"},
		{"an evicted or preempted pod", 0, "DisruptionTarget", "Ignore"},
	} {
		if got := action(j.PodFailurePolicy.Rules, c.code, c.condition); got != c.want {
			fail("the pod failure policy does %s with %s, want %s", got, c.what, c.want)
		}
	}
	pod := j.Template.Spec
	if pod.RestartPolicy != "Never" {
		fail("restartPolicy %q, want Never (a pod failure policy needs it)", pod.RestartPolicy)
	}
	if len(pod.Containers) != 1 {
		return errors.Join(append(errs, fmt.Errorf("%d containers, want 1", len(pod.Containers)))...)
	}
	c := pod.Containers[0]
	args := strings.Join(c.Args, " ")
	for _, want := range []string{"campaign -f /campaign/campaign.yaml", "-shard auto", "-shards " + strconv.Itoa(j.Completions), "-out /results/shard-$(JOB_COMPLETION_INDEX)"} {
		if !strings.Contains(args, want) {
			fail("args %q do not hold %q", args, want)
		}
	}
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounts[m.MountPath] = m.Name
	}
	for _, p := range []string{"/campaign", "/results", "/tmp"} {
		if mounts[p] == "" {
			fail("nothing is mounted at %s", p)
		}
	}
	if !slices.ContainsFunc(pod.Volumes, func(v volume) bool {
		return v.Name == mounts["/campaign"] && v.ConfigMap != nil
	}) {
		fail("the volume at /campaign (%q) is not a ConfigMap", mounts["/campaign"])
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// workflow is what the test reads of a GitHub Actions workflow.
type workflow struct {
	Jobs map[string]struct {
		Needs    any `yaml:"needs"`
		Strategy struct {
			Matrix struct {
				Shard []int `yaml:"shard"`
			} `yaml:"matrix"`
		} `yaml:"strategy"`
		Steps []step `yaml:"steps"`
	} `yaml:"jobs"`
}

type step struct {
	Uses string `yaml:"uses"`
	Run  string `yaml:"run"`
}

func TestDeployGitHubWorkflow(t *testing.T) {
	path := filepath.Join(deployDir, "github", "simrun-campaign.yml")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var w workflow
	if err := yaml.Unmarshal(b, &w); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	shard, merge := w.Jobs["shard"], w.Jobs["merge"]
	n := len(shard.Strategy.Matrix.Shard)
	if n == 0 {
		t.Fatalf("%s: job shard has no matrix of shards", path)
	}
	for i, s := range shard.Strategy.Matrix.Shard {
		if s != i {
			t.Errorf("matrix shard[%d] = %d, want %d", i, s, i)
		}
	}
	runs := func(steps []step, want string) bool {
		return slices.ContainsFunc(steps, func(s step) bool { return strings.Contains(s.Uses+" "+s.Run, want) })
	}
	for _, want := range []string{"go run ./cmd/simrun campaign -f deploy/campaign.yaml", fmt.Sprintf("-shard ${{ matrix.shard }}/%d", n), "actions/upload-artifact"} {
		if !runs(shard.Steps, want) {
			t.Errorf("no step of job shard holds %q", want)
		}
	}
	if fmt.Sprint(merge.Needs) != "shard" {
		t.Errorf("job merge needs %v, want shard", merge.Needs)
	}
	for _, want := range []string{"actions/download-artifact", "go run ./cmd/simrun merge"} {
		if !runs(merge.Steps, want) {
			t.Errorf("no step of job merge holds %q", want)
		}
	}
}

func TestDeployDockerfile(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(deployDir, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"CGO_ENABLED=0", "go build", "./cmd/simrun", "TMPDIR=/tmp"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("deploy/Dockerfile does not hold %q", want)
		}
	}
	if n := strings.Count(string(b), "\nFROM "); n < 2 {
		t.Errorf("deploy/Dockerfile has %d stages, want a build stage and a small final one", n)
	}
}

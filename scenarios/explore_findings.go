package scenarios

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/internal/runfile"
)

// group turns the findings into groups: the runs of one judge, one
// violation kind and one drawn shape are shrunk once, through the first
// of them (Shrink, a candidate kept when it fails with the same judge and
// kind), and the groups whose smallest shapes then agree are one.
func (e *explorer) group(ctx context.Context) {
	type pre struct {
		key  string
		runs []ExploreRun
	}
	var pres []*pre
	byKey := map[string]*pre{}
	for _, r := range e.rep.Runs {
		if r.Outcome != OutcomeFinding {
			continue
		}
		k := r.prelimKey()
		p := byKey[k]
		if p == nil {
			p = &pre{key: k}
			byKey[k] = p
			pres = append(pres, p)
		}
		p.runs = append(p.runs, r)
	}
	var groups []FindingGroup
	for _, p := range pres {
		first := p.runs[0]
		g := FindingGroup{Judge: first.Judge, Kind: first.Kind, Sentence: first.Message, Seed: first.Draw.Seed,
			Draw: first.Draw.String()}
		for _, r := range p.runs {
			g.Runs = append(g.Runs, r.Index)
		}
		s, err := e.drawer.scenario(e.base, first.Draw, fmt.Sprintf("%s/%s/explore-%d", e.cfg.Family, e.cfg.Recipe, first.Index))
		small := s
		if err == nil && e.cfg.ShrinkRuns > 0 && ctx.Err() == nil {
			small, g.Shrunk = e.shrink(ctx, s, first, &g)
		}
		g.Shape = minimalShape(small)
		g.Workload = workloadWords(small)
		if g.Replay == "" && first.Dir != "" {
			g.Page = filepath.Join(first.Dir, runfile.ResultFile)
			g.Replay = e.replayPrefix() + " replay " + g.Page
		}
		if i := slices.IndexFunc(groups, func(o FindingGroup) bool {
			return o.Judge == g.Judge && o.Kind == g.Kind && slices.Equal(o.Shape, g.Shape)
		}); i >= 0 {
			groups[i].Runs = append(groups[i].Runs, g.Runs...)
			continue
		}
		groups = append(groups, g)
	}
	e.rep.Groups = groups
}

// shrink shrinks s, which failed as run first did, within the budget of
// runs, and writes the smallest failing run's files for the group's page.
func (e *explorer) shrink(ctx context.Context, s Scenario, first ExploreRun, g *FindingGroup) (Scenario, string) {
	tries := 0
	var lastFail *Result
	fails := func(ctx context.Context, c Candidate) (bool, error) {
		if tries >= e.cfg.ShrinkRuns {
			return false, nil // past the budget: nothing more is run
		}
		tries++
		rctx, cancel := context.WithTimeout(ctx, budget(c.Scenario))
		defer cancel()
		res, err, frozen := runFreezable(rctx, c.Scenario)
		if err != nil || frozen != nil {
			return false, nil
		}
		for _, ch := range res.Checks {
			if ch.Checker == first.Judge && slices.ContainsFunc(ch.Violations, func(v checker.Violation) bool { return v.Kind == first.Kind }) {
				lastFail = res
				return true, nil
			}
		}
		return false, nil
	}
	small, _ := Shrink(ctx, s, ShrinkOptions{Fails: fails})
	before, after := len(s.Faults.Lines()), len(small.Faults.Lines())
	how := fmt.Sprintf("%d faults → %d, %d clients → %d, %v → %v in %d runs", before, after,
		s.Workload.Clients, small.Workload.Clients, s.Workload.Duration.D().Round(time.Millisecond), small.Workload.Duration.D().Round(time.Millisecond), tries)
	if lastFail != nil && e.cfg.Out != "" && lastFail.Scenario.Name == small.withDefaults().Name {
		dir := filepath.Join(e.cfg.Out, "smallest", fmt.Sprintf("%06d", first.Index))
		lastFail.Dir = dir
		g.Page = filepath.Join(dir, runfile.ResultFile)
		lastFail.Replay = e.replayPrefix() + " replay " + g.Page
		if writeRun(dir, lastFail) == nil {
			g.Replay = lastFail.Replay
			g.Sentence = firstViolation(lastFail, first)
		} else {
			g.Page = ""
		}
	}
	return small, how
}

// firstViolation is the message of res's first violation of first's judge
// and kind.
func firstViolation(res *Result, first ExploreRun) string {
	for _, ch := range res.Checks {
		if ch.Checker != first.Judge {
			continue
		}
		for _, v := range ch.Violations {
			if v.Kind == first.Kind {
				return v.Message
			}
		}
	}
	return first.Message
}

// minimalShape is s's faults, one a line, with the timeline's instants left
// out — the shape, not the moment. The workload (workloadWords) is not
// part of it: two findings of one judge and kind under the same faults
// are one way to break, whether or not the shrink got both down to the
// same clients.
func minimalShape(s Scenario) []string {
	var out []string
	if tl := s.Faults.Timeline; tl != nil {
		for _, st := range tl.Steps {
			name := st.Fault.String()
			if strings.HasPrefix(name, "delay(") && st.At == 0 {
				name = "network " + name
			}
			out = append(out, name+" at a drawn instant")
		}
		for _, tr := range tl.Triggers {
			out = append(out, fmt.Sprintf("%v on %v", tr.Fault, tr.On))
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) == 0 {
		out = append(out, "no fault")
	}
	return out
}

// writeRun writes res's files into dir, which it makes.
func writeRun(dir string, res *Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return runfile.WriteRun(dir, res, res.History())
}

// workloadWords says s's workload and cluster in one line: with its
// faults, what a reproduction needs.
func workloadWords(s Scenario) string {
	s = s.withDefaults()
	w, c := s.Workload, s.Cluster
	out := fmt.Sprintf("%d members, %d clients", c.Members, w.Clients)
	if w.Threads > 1 {
		out += fmt.Sprintf(" of %d threads", w.Threads)
	}
	if w.Pinned {
		out += " pinned"
	}
	if w.OwnerCheck != "" && w.OwnerCheck != OwnerCheckDone {
		out += ", owner check " + w.OwnerCheck
	}
	out += fmt.Sprintf(", TTL %v, hold %v, patience %v, think %v", w.TTL.D(), w.Hold.D(), w.Patience.D(), w.Think.D())
	if w.Writes > 0 {
		out += fmt.Sprintf(", %d writes a hold", w.Writes)
	}
	if c.Latency > 0 {
		out += fmt.Sprintf(", latency %v", c.Latency.D())
	}
	if c.ClientKeepAliveTime > 0 {
		out += ", gRPC keep-alive on"
	}
	return out + fmt.Sprintf(", %v run", w.Duration.D().Round(time.Millisecond))
}

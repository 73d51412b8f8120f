package simrun

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/scenarios/results"
	"github.com/etcdsim/etcdsim/seed"
)

var campaignCommand = &command{
	name:  "campaign",
	usage: "-f FILE [-shard i/n | -shard auto [-shards N]] [-parallel P] [-out DIR] [-run-timeout D] [-inprocess]",
	summary: "run a YAML matrix of scenarios × members × overrides × seeds, or one shard of it;\n" +
		"the file's form is documented in package simrun (campaignFile). Into a directory that holds\n" +
		"part of the same campaign (or shard) it resumes: complete runs are kept, the rest run",
	flags: func(fs *flag.FlagSet) { new(campaignFlags).register(fs) },
}

func init() { campaignCommand.run = runCampaign }

type campaignFlags struct {
	batchFlags
	file   string
	shard  string
	shards int
}

func (f *campaignFlags) register(fs *flag.FlagSet) {
	f.batchFlags.register(fs)
	fs.StringVar(&f.file, "f", "", "the campaign file (YAML)")
	fs.StringVar(&f.shard, "shard", "", "run shard i/n of the sorted run list (runs whose index is i modulo n), or auto: i from JOB_COMPLETION_INDEX")
	fs.IntVar(&f.shards, "shards", 0, "the shard count for -shard auto (default SHARD_COUNT)")
}

func runCampaign(e *env, args []string) (int, error) {
	var f campaignFlags
	pos, err := e.parseFlags(campaignCommand, args, f.register)
	if err != nil {
		return exitUsage, err
	}
	if len(pos) > 0 {
		return exitUsage, usagef("campaign takes no arguments (got %q); name the file with -f", pos)
	}
	if f.file == "" {
		return exitUsage, usagef("name the campaign file with -f")
	}
	shard, err := parseShard(f.shard, f.shards)
	if err != nil {
		return exitUsage, err
	}
	c, err := readCampaign(f.file)
	if err != nil {
		return exitUsage, configErr(err)
	}
	all, err := c.expand(e.all())
	if err != nil {
		return exitUsage, configErr(fmt.Errorf("%s: %w", f.file, err))
	}
	if err := f.batchFlags.check(e); err != nil {
		return exitUsage, err
	}
	// -clock changes what runs, so it is part of what the campaign is.
	applyClock(all, f.clock)
	applyMemberBinaries(all, f.memberBinaries)
	a, err := parseAuth(f.auth)
	if err != nil {
		return exitUsage, usagef("-auth %v", err)
	}
	applyAuth(all, a)
	hash, err := campaignHash(all)
	if err != nil {
		return exitUsage, configErr(err)
	}
	jobs := pickShard(shard, all)
	fmt.Fprintf(e.stderr, "simrun: campaign %s: %d runs in all; shard %s has %d\n", hash, len(all), shard, len(jobs))
	sum := results.Summary{Command: "campaign", Campaign: hash, CampaignRuns: len(all), Shards: []results.Shard{shard}}
	done, err := resume(e.stderr, f.out, f.file, sum, jobs)
	if err != nil {
		return exitUsage, configErr(err)
	}
	return e.batch(jobs, f.batchFlags, sum, done)
}

// expand returns the campaign's runs, sorted by key: each matched
// scenario, with each members count, each override and each seed.
func (c *campaignFile) expand(registered []scenarios.Scenario) ([]job, error) {
	type pick struct {
		s     scenarios.Scenario
		seeds []seed.Seed
		line  int // the line of the entry that picked it
	}
	var picked []pick
	seen := map[string]bool{}
	for _, p := range c.Scenarios {
		ss, err := match(registered, []string{p.v.match})
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", p.line, err)
		}
		seeds := p.v.seeds.list
		if len(seeds) == 0 {
			seeds = c.Seeds.list
		}
		for _, s := range ss {
			if !seen[s.Name] {
				seen[s.Name] = true
				picked = append(picked, pick{s, seeds, p.line})
			}
		}
	}
	members, memberLines := c.Members, c.memberLines
	if len(members) == 0 {
		members, memberLines = []int{0}, []int{0}
	}
	overrides := c.Overrides
	if len(overrides) == 0 {
		overrides = []override{{}}
	}
	var jobs []job
	var errs []error
	for _, p := range picked {
		for mi, m := range members {
			for i, o := range overrides {
				v := p.s
				var variant []string
				if m > 0 {
					v.Cluster.Members = m
					variant = append(variant, "members-"+strconv.Itoa(m))
				}
				if len(c.Overrides) > 0 {
					name := o.Name
					if name == "" {
						name = "override-" + strconv.Itoa(i)
					}
					variant = append(variant, name)
					if err := o.apply(&v); err != nil {
						errs = append(errs, fmt.Errorf("line %d: %s: ttl %s: %w", o.lineOf("ttl"), results.Label(v.Name, strings.Join(variant, "-")), o.TTL, err))
						continue
					}
				}
				// Checked here, where each finding can be given the
				// line that caused it.
				where := campaignLines{entry: p.line, members: memberLines[mi], override: o, overridden: len(c.Overrides) > 0}
				label := results.Label(v.Name, strings.Join(variant, "-"))
				if err := v.Validate(); err != nil {
					errs = append(errs, where.errors(label, v.Name, err)...)
				} else if err := v.CheckScheduleLength(); err != nil && where.overridden {
					errs = append(errs, where.errors(label, v.Name, err)...)
				}
				for _, sd := range p.seeds {
					v.Seed = sd
					jobs = append(jobs, job{scenario: v, variant: strings.Join(variant, "-")})
				}
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	slices.SortFunc(jobs, func(a, b job) int { return strings.Compare(a.key(), b.key()) })
	for i := 1; i < len(jobs); i++ {
		if jobs[i].key() == jobs[i-1].key() {
			return nil, fmt.Errorf("run %s seed %s comes twice: give the overrides different names, and the seeds different values", jobs[i].label(), jobs[i].scenario.Seed)
		}
	}
	return jobs, nil
}

// apply sets what o overrides on s: its TTL first, which scales the
// scenario's times (ttlSpec), then the duration, clients, latency, auth
// and faults it sets outright.
func (o override) apply(s *scenarios.Scenario) error {
	var err error
	if *s, err = o.TTL.apply(*s); err != nil {
		return err
	}
	if o.Duration > 0 {
		s.Workload.Duration = o.Duration
	}
	if o.Clients > 0 {
		s.Workload.Clients = o.Clients
	}
	if o.Latency > 0 {
		s.Cluster.Latency = o.Latency
	}
	if o.Auth != nil {
		cp := *o.Auth.a
		s.Cluster.Auth = &cp
	}
	if o.Faults != nil {
		s.Faults = scenarios.Faults{}
		if len(*o.Faults) > 0 {
			tl := &faults.Timeline{}
			for _, st := range *o.Faults {
				tl.Steps = append(tl.Steps, faults.Step(st.v))
			}
			s.Faults.Timeline = tl
		}
	}
	return nil
}

// campaignHash identifies a campaign by its expanded run list: every
// shard of one campaign file has it, and a changed file has another.
func campaignHash(jobs []job) (string, error) {
	h := sha256.New()
	for _, j := range jobs {
		b, err := json.Marshal(j.scenario)
		if err != nil {
			return "", fmt.Errorf("hashing the campaign: %s: %w", j.label(), err)
		}
		fmt.Fprintf(h, "%s\n%s\n", j.key(), b)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

package scenarios

import (
	"fmt"
	"slices"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/discovery"
	"github.com/etcdsim/etcdsim/faults"
	"github.com/etcdsim/etcdsim/internal/recipe"
)

// FamilyDiscovery names the family.
const FamilyDiscovery = recipe.Discovery

// discoveryFamily: backends register a service, resolvers follow it, and
// callers call through what the resolvers show.
var discoveryFamily = family{
	name:      FamilyDiscovery,
	key:       "svc",
	observers: 1,
	keys:      func(w Workload) []string { return []string{w.Key + "/"} },
	knobs:     []string{"resolver"},
	defaults: func(w *Workload) {
		if w.Resolver == "" {
			w.Resolver = "relisting"
			if w.ResolverRecipe != nil {
				w.Resolver = w.ResolverRecipe.Name
			}
		}
	},
	checkers: []checker.Name{checker.CheckerDiscoveryConvergence, checker.CheckerKeysOnLeases},
	command:  discoveryCommand,
	slots: []slot{
		slotOf("registrar", "WithRegistrar", func(w *Workload) **discovery.RegistrarRecipe { return &w.Registrar }, discovery.LookupRegistrar),
		resolverSlot,
		decodeSlot,
	},
	run:        (*world).discoveryWorkload,
	minClients: func(Workload) int { return 1 }, // one backend can be lost
	safety:     []string{"DiscoverySafety", "DiscoveryResolverSafety", "DiscoveryPairSafety"},
	gallery:    discoveryScenarios,
}

// WithResolver is WithLock for a discovery resolver. The scenario keeps
// its registrar.
func (s Scenario) WithResolver(r discovery.ResolverRecipe) Scenario {
	s.Workload.ResolverRecipe = &r
	return s.reuse(r.Name, r.Expect, true)
}

// WithRegistrar is WithLock for a discovery registrar. The scenario keeps
// its resolver.
func (s Scenario) WithRegistrar(r discovery.RegistrarRecipe) Scenario {
	s.Workload.Registrar = &r
	return s.reuse(r.Name, r.Expect, false)
}

// resolverSlot holds a program's own resolver, named by Workload.Resolver.
var resolverSlot = func() slot {
	sl := slotOf("resolver_recipe", "WithResolver", func(w *Workload) **discovery.ResolverRecipe { return &w.ResolverRecipe }, discovery.LookupResolver)
	sl.resolver = true
	return sl
}()

// discoveryScenarios are the discovery family's registered scenarios: each
// correct registrar with the correct resolver through DiscoverySafety,
// then each broken registrar and resolver under the schedule that exposes
// it.
func discoveryScenarios() []Scenario {
	var out []Scenario
	for _, r := range discovery.Registrars() {
		if !r.Broken {
			out = append(out, DiscoverySafety(r)...)
		}
	}
	return append(out, discoveryPitfalls()...)
}

// DiscoverySafety returns the scenarios a correct registrar — one of ours
// or a user's own — must pass with the relisting resolver, each judged by
// DiscoveryConvergence: the standard fault mix, in which backend c1 is cut
// off for less than its lease's TTL and must stay registered throughout;
// backends crashing and coming back on new ports while the resolver is cut
// off and the history it has not seen is compacted; and each member in
// turn cut off from the others while backends crash and come back. The
// last two are the schedules that expose the broken resolvers, so a pass
// here shows that what fails there is the resolver.
//
// And backend c1's lease revoked under it: the registrar must register
// again, and DiscoveryConvergence gives it until the revoke plus the TTL
// and the bound to be back — the schedule that exposes a registrar that
// never does. Then backends crashed without deregistering (their keys
// must leave with their leases, and the restarted processes register
// anew), and every backend's lease revoked in turn, so that each
// registrar deletes and puts its key again while the resolvers watch.
//
// DiscoveryResolverSafety runs the same schedules for a resolver, and
// DiscoveryPairSafety for a registrar and a resolver together.
func DiscoverySafety(r discovery.RegistrarRecipe) []Scenario {
	return discoverySafety(r.Name, r, mustResolver("relisting"))
}

// DiscoveryResolverSafety returns the scenarios of DiscoverySafety for a
// resolver — one of ours or a user's own — with the correct keepalive
// registrar, named "discovery/<resolver>/<schedule>". A correct resolver
// must pass them all; the crash and re-registration schedules are the
// ones a resolver that misapplies watch events fails.
func DiscoveryResolverSafety(r discovery.ResolverRecipe) []Scenario {
	return discoverySafety(r.Name, mustRegistrar("keepalive"), r)
}

// DiscoveryPairSafety returns the scenarios of DiscoverySafety for a
// registrar and a resolver of one's own together, named
// "discovery/<registrar>+<resolver>/<schedule>".
func DiscoveryPairSafety(reg discovery.RegistrarRecipe, res discovery.ResolverRecipe) []Scenario {
	return discoverySafety(reg.Name+"+"+res.Name, reg, res)
}

// discoverySafety builds the DiscoverySafety schedules for registrar reg
// and resolver res, naming them "discovery/<name>/<schedule>". A recipe
// that is not in its registry runs as the Workload's own.
func discoverySafety(name string, reg discovery.RegistrarRecipe, res discovery.ResolverRecipe) []Scenario {
	base := Scenario{
		Cluster:  Cluster{Members: 3},
		Workload: Workload{Family: FamilyDiscovery, Recipe: reg.Name, Resolver: res.Name, Clients: 3, Observers: 1},
		Checkers: []Check{{Name: checker.CheckerDiscoveryConvergence}},
		Seed:     1,
	}
	if reg.Family == "" || !slices.ContainsFunc(discovery.Registrars(), func(x discovery.RegistrarRecipe) bool { return x.Name == reg.Name }) {
		rr := reg
		base.Workload.Registrar = &rr
	}
	if res.Family == "" || !slices.ContainsFunc(discovery.Resolvers(), func(x discovery.ResolverRecipe) bool { return x.Name == res.Name }) {
		rr := res
		base.Workload.ResolverRecipe = &rr
	}
	base = base.recordCommand()

	mix := base
	mix.Name = "discovery/" + name + "/standard-mix"
	mix.Description = name + " under a leader kill, a minority partition, a backend cut off for a third of its TTL, a leader storm and a compaction: the resolver follows the registered set"
	// A lease of 3s outlives the 1s cut of c1 with room to spare: a
	// correct registrar keeps its backend registered all along.
	mix.Workload.TTL = Duration(3 * time.Second)
	mix.Workload.Duration = Duration(8 * time.Second)
	mix.Faults.Timeline = standardMix()

	compact := base
	compact.Name = "discovery/" + name + "/isolate-resolver-compact"
	compact.Description = name + ": a backend crashes and comes back on a new port while the resolver is cut off, and etcd compacts the changes it missed; the resolver lists again"
	compact.Workload.Duration = Duration(discoveryCompactRun)
	compact.Faults.Timeline = isolateResolverCompact()

	each := base
	each.Name = "discovery/" + name + "/partition-each-member"
	each.Description = name + ": each member in turn is cut off from the others while a backend crashes; the resolver never serves what a cut-off member says as current"
	each.Workload.TTL = Duration(eachTTL)
	each.Workload.Duration = Duration(discoveryEachRun)
	each.Faults.Timeline = partitionEachMember()

	revoke := base
	revoke.Name = "discovery/" + name + "/revoke-lease"
	revoke.Description = name + ": backend c1's lease is revoked under it; the registrar registers again and the resolver sees c1 back"
	revoke.Workload.Duration = Duration(discoveryRevokeRun)
	revoke.Faults.Timeline = revokeBackendLease()

	crash := base
	crash.Name = "discovery/" + name + "/crash-backend"
	crash.Description = name + ": backends crash without deregistering; their keys leave with their leases, the resolver drops them and finds the restarted processes on their new ports"
	crash.Workload.Duration = Duration(discoveryCrashRun)
	crash.Faults.Timeline = crashBackends()

	again := base
	again.Name = "discovery/" + name + "/reregister"
	again.Description = name + ": each backend's lease is revoked in turn and its registrar deletes and puts the same key again while the resolver watches; the resolver keeps every backend"
	again.Workload.Duration = Duration(discoveryReregisterRun)
	again.Faults.Timeline = reregisterBackends()

	return judgeKeys([]Scenario{mix, compact, each, revoke, crash, again})
}

// mustRegistrar and mustResolver return the registered recipe called name,
// which the package knows is there.
func mustRegistrar(name string) discovery.RegistrarRecipe {
	r, err := discovery.LookupRegistrar(name)
	if err != nil {
		panic(err)
	}
	return r
}

func mustResolver(name string) discovery.ResolverRecipe {
	r, err := discovery.LookupResolver(name)
	if err != nil {
		panic(err)
	}
	return r
}

// discoveryRevokeRun is how long the revoke-lease schedule runs: resolvers
// are judged for 2s and more after the revoke (2.5s) plus the TTL (1s)
// and the bound (2s).
const discoveryRevokeRun = 8 * time.Second

// revokeBackendLease revokes backend c1's lease once the registry has been
// stable for the convergence bound, so that every report after it is
// judged.
func revokeBackendLease() *faults.Timeline {
	return &faults.Timeline{Steps: []faults.Step{
		faults.At(2500*time.Millisecond, 0, faults.RevokeLease(faults.Client("c1"))),
	}}
}

// discoveryCompactRun is how long the isolate-resolver-compact schedule
// runs: 2s after the last change of the registered set (the restarted
// backend's registration, at about 2.6s) resolvers are judged, for a
// second and more.
const discoveryCompactRun = 6 * time.Second

// isolateResolverCompact cuts the resolver o1 off from etcd for 2s. In that
// time backend c1 crashes — its lease expires a TTL (1s) later and its key
// goes — and comes back on a new port; then etcd compacts its history up to
// the new registration. When the link heals, the resolver's watch resumes
// from the revision after the last it saw, which is compacted: it must list
// again.
func isolateResolverCompact() *faults.Timeline {
	return &faults.Timeline{Steps: []faults.Step{
		faults.At(time.Second, 2*time.Second, faults.Isolate(faults.Client("o1"))),
		faults.At(time.Second, 1600*time.Millisecond, faults.Crash(faults.Client("c1"))),
		faults.At(2900*time.Millisecond, 0, faults.Compact()),
	}}
}

// The partition-each-member schedule; see partitionEachMember.
const (
	eachTTL   = 2 * time.Second        // the backends' lease TTL
	eachStart = 800 * time.Millisecond // when m0 is cut off
	eachCut   = 3900 * time.Millisecond
	eachGap   = 600 * time.Millisecond // healthy, between two cuts
	eachCrash = 600 * time.Millisecond // how long before its cut a backend crashes
	// discoveryEachRun ends the run once the last crashed backend has
	// registered again.
	discoveryEachRun = eachStart + 3*eachCut + 2*eachGap + 600*time.Millisecond
)

// partitionEachMember cuts m0, m1 and m2 in turn off from the other two
// members, so that whichever member a resolver's watch sits on is cut off
// once. Backend c<k+1> crashes eachCrash before m<k> is cut off. Its lease
// (eachTTL, renewed every quarter of it) expires after the cut began, so
// the cut-off member never learns that its key is gone; the registry then
// holds still for the convergence bound (2s), and resolvers are judged,
// while the member is still cut off. (Cutting off the leader makes the new
// one extend every lease by a TTL; the crashed backend's key still goes
// within the bound, the schedule leaves room for that.) The backend comes
// back on a new port just after the cut heals, and registers on a healthy
// cluster before the next cut.
func partitionEachMember() *faults.Timeline {
	tl := &faults.Timeline{}
	for k := range 3 {
		at := eachStart + time.Duration(k)*(eachCut+eachGap)
		tl.Steps = append(tl.Steps,
			faults.At(at-eachCrash, eachCrash+eachCut+100*time.Millisecond, faults.Crash(faults.Client(fmt.Sprintf("c%d", k+1)))),
			faults.At(at, eachCut, faults.Partition(faults.Member(k))))
	}
	return tl
}

// discoveryPitfalls are the gallery's broken registrars and resolvers,
// each under the schedule that exposes it.
func discoveryPitfalls() []Scenario {
	// pitfall runs registrar r with resolver res, one of them broken.
	pitfall := func(r discovery.RegistrarRecipe, res discovery.ResolverRecipe, fault, desc string, d time.Duration, tl *faults.Timeline) Scenario {
		broken, expect := r.Name, r.Expect
		if res.Broken {
			broken, expect = res.Name, res.Expect
		}
		return Scenario{
			Name:        "discovery/" + broken + "/" + fault,
			Description: desc,
			Cluster:     Cluster{Members: 3},
			Workload: Workload{Family: FamilyDiscovery, Recipe: r.Name, Resolver: res.Name, Clients: 3, Observers: 1,
				Duration: Duration(d)},
			Faults:   Faults{Timeline: tl},
			Checkers: []Check{{Name: checker.CheckerDiscoveryConvergence}},
			Expect:   expect,
			Seed:     1,
		}
	}
	registrar, resolver := mustRegistrar, mustResolver
	keepalive, relisting := registrar("keepalive"), resolver("relisting")
	revoke := pitfall(registrar("noreregister"), relisting, "revoke-lease",
		"backend c1's lease is revoked: the registrar gives up, and c1, alive and serving, is gone from discovery for good",
		discoveryRevokeRun, revokeBackendLease())
	compact := pitfall(keepalive, resolver("stopsonerror"), "isolate-resolver-compact",
		"the resolver's watch resumes from a compacted revision after a cut: the resolver stops, frozen on a crashed backend's old port and missing its new one",
		discoveryCompactRun, isolateResolverCompact())
	each := pitfall(keepalive, resolver("serializable"), "partition-each-member",
		"the member the resolver's watch sits on is cut off while a backend's key expires: the resolver keeps serving the dead backend as current",
		discoveryEachRun, partitionEachMember())
	each.Workload.TTL = Duration(eachTTL)
	again := pitfall(keepalive, resolver("debounced"), "reregister",
		"each backend's lease is revoked in turn and its registrar deletes and puts the same key again within milliseconds: the resolver applies the put before the delete and drops the backend for good",
		discoveryReregisterRun, reregisterBackends())
	return append([]Scenario{revoke, compact, each, again}, fieldDiscoveryPitfalls()...)
}

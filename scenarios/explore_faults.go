package scenarios

import (
	"fmt"

	"github.com/etcdsim/etcdsim/faults"
)

// The explorer's fault table: one entry per action of the fault
// vocabulary (faults.Actions), saying what the action can be aimed at,
// how a draw builds it, and the one rule that says what a correct recipe
// may lose while it is in force. TestExploreFaultsCoverTheVocabulary
// fails when an action has no entry, so a fault added to package faults
// is drawn, or says why not, before it ships.

// aim is what a fault can be aimed at.
type aim uint8

const (
	aimNone    aim = iota // no target: compact, ring, storms
	aimMembers            // members by role: leader, follower, minority, m<i>, pinned <client>
	aimClients            // clients: the holder, a named client, all of them
	aimNodes              // members or clients
	aimKeys               // a client's session keys, as a writer outside the recipe
	aimLink               // a link between two nodes (cut)
	aimFlap               // another fault, flapped
)

// loss is what a correct recipe may lose under a fault: the rule that
// picks a draw's judges (exploreJudges).
type loss uint8

const (
	// keepsAll: a correct recipe keeps every property through it; the
	// family's judges all apply, holds judged by who held when.
	keepsAll loss = iota
	// signalsLoss: a holder cut off from the cluster but running may lose
	// its lease, and its own session tells it no later than the server
	// frees the lock: its client counts the TTL from the last answer it
	// heard, which came after the server's last renewal. A correct recipe
	// stops before its successor starts, and exclusion is judged by who
	// held when, as for keepsAll; only the lock's linearizability, which
	// a lease lost on the server breaks, is not judged.
	signalsLoss
	// mayLoseLease: a holder cut off, paused, crashed or slowed may lose
	// its lease while it still believes it holds; only the guarded
	// resource, through its fencing token, can refuse its late writes.
	// Exclusion is judged by the resource (LockSafety's pause-holder and
	// crash-holder judge the same way).
	mayLoseLease
	// endsAtOnce: the hold ends on the server the instant the fault lands
	// (a lease revoked from outside), before any recipe can learn of it:
	// who led when cannot be judged, only what the guarded resource let
	// through, by its tokens. Exclusion is judged by the resource; an
	// election by its fencing tokens alone, not by its terms.
	endsAtOnce
	// foreignKeys: a writer outside the recipe wrote or deleted its keys.
	// A key put without a lease never expires, so nobody can be expected
	// to make progress past it: liveness is not judged; a deleted key
	// frees the lock under its holder, which only the token guards — as
	// for endsAtOnce.
	foreignKeys
)

// exploreFault is one action of the vocabulary as the explorer draws it.
type exploreFault struct {
	// action is the action's name, as faults.Actions lists it.
	action string
	aim    aim
	// instant says the fault is over once injected.
	instant bool
	loss    loss
	// rule says in a sentence why loss is what a correct recipe may lose.
	rule string
	// skip, if set, says why the explorer does not draw the action.
	skip string
	// minMembers is the fewest members the action applies to; 0 means 1.
	minMembers int
	// build makes the fault aimed at ts (one target, two for a link,
	// none for aimNone); every is a storm's interval or a delay.
	build func(ts []faults.Target, p faultParams) faults.Fault
}

// faultParams are the numbers a drawn fault carries besides its targets.
type faultParams struct {
	Every  Duration `json:"every,omitempty"`  // storm interval, flap period
	Delay  Duration `json:"delay,omitempty"`  // a delay fault's delay
	Jitter Duration `json:"jitter,omitempty"` // and its jitter
	Inner  string   `json:"inner,omitempty"`  // a flap's fault
}

func one(f func(faults.Target) faults.Fault) func([]faults.Target, faultParams) faults.Fault {
	return func(ts []faults.Target, _ faultParams) faults.Fault { return f(ts[0]) }
}

const (
	ruleKeepsAll = "a correct recipe keeps every property through it: every judge of the family applies"
	ruleLease    = "a holder it reaches may lose its lease while it believes it holds: exclusion is judged by the fenced resource"
	ruleSignals  = "a holder it reaches may lose its lease, but is running and hears no renewal: its session ends no later than the server frees the lock, so exclusion is judged by who held when"
)

// exploreFaults is the table, in faults.Actions' order.
var exploreFaults = []exploreFault{
	{action: "compact", aim: aimNone, instant: true, rule: ruleKeepsAll,
		build: func([]faults.Target, faultParams) faults.Fault { return faults.Compact() }},
	{action: "crash", aim: aimClients, loss: mayLoseLease, rule: "a crashed holder never releases; its hold ends when its lease expires, so only the resource can tell its last writes from its successor's",
		build: one(faults.Crash)},
	{action: "cut", aim: aimLink, minMembers: 3, loss: signalsLoss, rule: "a cut link may carry a holder's keep-alives: " + ruleSignals,
		build: func(ts []faults.Target, _ faultParams) faults.Fault { return faults.Cut(ts[0], ts[1]) }},
	{action: "defrag", aim: aimMembers, instant: true, rule: ruleKeepsAll, build: one(faults.Defrag)},
	{action: "delay", aim: aimNodes, loss: mayLoseLease, rule: "a slow link may hold back a holder's keep-alives past its TTL: " + ruleLease,
		build: func(ts []faults.Target, p faultParams) faults.Fault {
			return faults.Delay(ts[0], p.Delay.D(), p.Jitter.D())
		}},
	{action: "delete", aim: aimKeys, instant: true, loss: foreignKeys, rule: "a writer outside the recipe deletes a holder's keys: the lock is free under its holder, and only the token guards the resource",
		build: one(faults.Delete)},
	{action: "expire-token", skip: "it needs a cluster with auth on; the explorer's clusters run with auth off"},
	{action: "flap", aim: aimFlap, loss: mayLoseLease, rule: "a fault that comes and goes is judged as the fault it flaps; the explorer flaps isolate, pause and partition, which may cost a holder its lease",
		build: func(ts []faults.Target, p faultParams) faults.Fault {
			var inner faults.Fault
			switch p.Inner {
			case "pause":
				inner = faults.Pause(ts[0])
			case "partition":
				inner = faults.Partition(ts[0])
			default:
				inner = faults.Isolate(ts[0])
			}
			return faults.Flap(inner, p.Every.D(), p.Every.D(), 3)
		}},
	{action: "freeze", aim: aimMembers, loss: mayLoseLease, rule: "a frozen member may hold a holder's keep-alive stream: " + ruleLease,
		build: one(faults.Freeze)},
	{action: "isolate", aim: aimNodes, loss: signalsLoss, rule: "an isolated holder, or its member, cannot renew: " + ruleSignals,
		build: one(faults.Isolate)},
	{action: "kill", aim: aimMembers, loss: mayLoseLease, rule: "a killed member may have carried a holder's keep-alive stream, which moves only after gRPC notices: " + ruleLease,
		build: one(faults.Kill)},
	{action: "leader-kill-storm", aim: aimNone, loss: mayLoseLease, minMembers: 3, rule: "leaders killed one after another may leave no quorum to renew a lease for a while: " + ruleLease,
		build: func(_ []faults.Target, p faultParams) faults.Fault { return faults.LeaderKillStorm(p.Every.D()) }},
	{action: "leader-storm", aim: aimNone, minMembers: 3, rule: "a new leader renews every lease as it takes over: " + ruleKeepsAll,
		build: func(_ []faults.Target, p faultParams) faults.Fault { return faults.LeaderStorm(p.Every.D()) }},
	{action: "lose-responses", aim: aimClients, loss: signalsLoss, rule: "a holder that hears no answers cannot renew: " + ruleSignals,
		build: one(faults.LoseResponses)},
	{action: "partition", aim: aimNodes, loss: signalsLoss, minMembers: 3, rule: "a partition may cut a holder from the quorum that renews its lease: " + ruleSignals,
		build: one(faults.Partition)},
	{action: "pause", aim: aimClients, loss: mayLoseLease, rule: "a paused holder does not renew and wakes believing it holds: " + ruleLease,
		build: one(faults.Pause)},
	{action: "put", aim: aimKeys, instant: true, loss: foreignKeys, rule: "a writer outside the recipe overwrites a holder's keys with no lease, so they never expire: nobody can be expected to get the lock past them, and liveness is not judged",
		build: func(ts []faults.Target, _ faultParams) faults.Fault { return faults.Put(ts[0], "explore") }},
	{action: "replace", skip: "on the virtual clock a new member joins through real sockets, which hold the bubble's clock still (cluster/vjoin.go); the explorer leaves it out"},
	{action: "reset", aim: aimClients, loss: signalsLoss, rule: "a holder whose connections are reset cannot renew: " + ruleSignals,
		build: one(faults.Reset)},
	{action: "revoke-lease", aim: aimClients, instant: true, loss: endsAtOnce, rule: "a revoked lease ends the hold on the server at once, and the holder learns of it only later: exclusion is judged by the fenced resource, an election by its tokens, not by who led when",
		build: one(faults.RevokeLease)},
	{action: "ring", aim: aimNone, minMembers: 4, loss: mayLoseLease, rule: "every member sees a different majority, and a holder's may not be the leader's: " + ruleLease,
		build: func([]faults.Target, faultParams) faults.Fault { return faults.Ring() }},
	{action: "stop", aim: aimMembers, loss: mayLoseLease, rule: "a stopped member is a killed one that keeps its data: " + ruleLease,
		build: one(faults.Stop)},
}

// exploreFaultOf returns the table's entry for action.
func exploreFaultOf(action string) (exploreFault, error) {
	for _, f := range exploreFaults {
		if f.action == action {
			return f, nil
		}
	}
	return exploreFault{}, fmt.Errorf("scenarios: explore: no fault %q in the explorer's table", action)
}

// drawable returns the table's entries a draw may use on a cluster of
// members members.
func drawable(members int) []exploreFault {
	var out []exploreFault
	for _, f := range exploreFaults {
		if f.skip == "" && members >= max(f.minMembers, 1) {
			out = append(out, f)
		}
	}
	return out
}

package checker

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// PermissionDenied is the message of etcd's refusal of a call its caller
// may not make (rpctypes.ErrPermissionDenied). An operation whose Error
// contains it was refused for want of a permission, however the recipe
// or a server-side service wrapped it.
const PermissionDenied = "etcdserver: permission denied"

// permissionKinds are the calls of the recipes that can run with auth on,
// the operations PermissionHeld reads.
var permissionKinds = []Kind{KindAcquire, KindRelease, KindGuardedWrite, KindCampaign, KindResign,
	KindLeaderObserved, KindRegister, KindDeregister, KindResolve}

// PermissionOptions configures PermissionHeld. The zero value keeps 20
// violations.
type PermissionOptions struct {
	// MaxViolations caps the violations kept in the result: 0 means 20,
	// negative keeps all.
	MaxViolations int
}

// PermissionHeld checks, for a run with etcd's auth on, that no call was
// refused a permission its caller holds: an operation whose Error
// carries etcd's "permission denied" (PermissionDenied), made by a client
// whose user (History.Users) was granted every prefix the client's recipe
// needs — to read, and to write unless the need is read-only; a grant on
// a prefix covers the keys under any longer prefix. A refusal of a client
// whose user lacks one of them is deserved and counted, not judged.
//
// It reads the Error of every operation of the kinds a recipe run with
// auth on records (acquire, release, guarded-write, campaign, resign,
// leader-observed, register, deregister, resolve), whatever its outcome,
// and History.Users.
//
// A history that names no client's user (auth off, or not recorded) gives
// unknown, as does a refusal of a client whose user or needs it does not
// name; no refusal at all, or only deserved ones, is ok. Invalid:
// whatever History.Validate rejects.
func PermissionHeld(h History, opts PermissionOptions) Result {
	rep := newReport(CheckerPermissionHeld, opts.MaxViolations)
	if err := h.Validate(); err != nil {
		return rep.invalid(err)
	}
	undecided := ""
	if len(h.Users) == 0 {
		undecided = "the history names no client's etcd user (History.Users, recorded when a run has auth on)"
	}
	refused, held := 0, 0
	for i := range h.Ops {
		op := &h.Ops[i]
		if !slices.Contains(permissionKinds, op.Kind) || !strings.Contains(op.Error, PermissionDenied) {
			continue
		}
		refused++
		if len(h.Users) == 0 {
			continue
		}
		client := processOf(op.Client)
		u, ok := h.Users[client]
		switch {
		case !ok:
			undecided = fmt.Sprintf("client %s was refused, and the history does not name its user (users are named for %v)", client, slices.Sorted(maps.Keys(h.Users)))
			continue
		case len(u.Needs) == 0:
			undecided = fmt.Sprintf("client %s was refused, and the history does not say which keys its recipe needs", client)
			continue
		case !u.holds():
			continue
		}
		held++
		rep.violation(ViolationRefusedHeldPermission, []*Operation{op}, "%s (user %s, granted %s) was refused %s at %s: %s",
			op.Client, u.User, u.granted(), callOf(op), fmtTime(answeredAt(op)), op.Error)
	}
	rep.res.Metrics["refused"] = float64(refused)
	rep.res.Metrics["refused-held"] = float64(held)
	summary := sprintf("%s refused \"permission denied\", %d of them a permission the caller's user holds", plural(refused, "call"), held)
	return rep.done(summary, undecided)
}

// holds reports whether u's grants cover each of its needs: a grant on a
// prefix of the need's, to write too unless the need is read-only.
func (u ClientUser) holds() bool {
	for _, n := range u.Needs {
		if !slices.ContainsFunc(u.Grants, func(g Grant) bool {
			return strings.HasPrefix(n.Prefix, g.Prefix) && (n.ReadOnly || !g.ReadOnly)
		}) {
			return false
		}
	}
	return true
}

// granted lists u's grants: "readwrite on E/ and read on F/".
func (u ClientUser) granted() string {
	parts := make([]string, len(u.Grants))
	for i, g := range u.Grants {
		parts[i] = g.String()
	}
	return strings.Join(parts, " and ")
}

// callNouns name what an operation's Key is, by its kind.
var callNouns = map[Kind]string{
	KindAcquire: "lock", KindRelease: "lock", KindGuardedWrite: "lock",
	KindCampaign: "election", KindResign: "election", KindLeaderObserved: "election",
	KindRegister: "service", KindDeregister: "service", KindResolve: "service",
}

// callOf says what op was: "campaign on election E1".
func callOf(op *Operation) string {
	if op.Key == "" {
		return string(op.Kind)
	}
	return fmt.Sprintf("%s on %s %s", op.Kind, callNouns[op.Kind], op.Key)
}

// answeredAt is when op's client had its answer: Return, or, for an
// outcome unknown, when it gave up (its call if that is not recorded).
func answeredAt(op *Operation) time.Duration {
	switch {
	case op.Outcome != OutcomeUnknown:
		return op.Return
	case op.GaveUp > 0:
		return op.GaveUp
	}
	return op.Call
}

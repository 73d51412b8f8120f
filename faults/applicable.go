package faults

import (
	"errors"
	"strings"
)

// A fault may be aimed at something the run's recipe does not offer: a
// lease revoked on a lock holder whose recipe keeps no lease the harness
// can see, say. That is no failure of the schedule or of the harness, and
// no reason to leave the run unjudged: the fault is recorded as not
// applicable to this recipe, with the reason (checker.FaultEvent's
// NotApplicable), it does nothing, and the run goes on and is judged
// without it.

// ErrNotApplicable is wrapped by the error of a fault that did not apply
// to the run's recipe. Env.Inject returns it; a schedule records the event
// and does not count it among its errors.
var ErrNotApplicable = errors.New("faults: not applicable to this recipe")

// notApplicable is the error of a fault that did not apply, and why.
type notApplicable struct{ why string }

func (e *notApplicable) Error() string        { return ErrNotApplicable.Error() + ": " + e.why }
func (e *notApplicable) Is(target error) bool { return target == ErrNotApplicable }

// whyNotApplicable returns the reason err carries if it says a fault did
// not apply.
func whyNotApplicable(err error) (string, bool) {
	var na *notApplicable
	if errors.As(err, &na) {
		return na.why, true
	}
	return "", false
}

// NoLease tells the Env that client's recipe offers no lease a fault can
// aim at, and why: a sentence naming the recipe and what it lacks, such as
// `lock recipe "mine": its holder (*main.holder) has no Lease method
// (lock.Leaser)`. Until client records an acquire, campaign or
// registration that carries a lease (checker.Output.Lease), a RevokeLease
// aimed at it is recorded as not applicable, with that reason, instead of
// failing or revoking a lease recorded before, an earlier holder's. A workload calls NoLease before it records the operation whose
// lease it cannot tell, so that a trigger on that operation knows already.
func (e *Env) NoLease(client, why string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.noLease[Process(client)] = why
}

// noLeaseWhy returns why client has no lease, if its workload said so.
func (e *Env) noLeaseWhy(client string) (string, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	why, ok := e.noLease[client]
	return why, ok
}

// joinWhy joins the reasons of several clients' faults that did not apply.
func joinWhy(whys []string) string { return strings.Join(whys, "; ") }

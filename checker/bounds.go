package checker

import "time"

// The default bounds of the judges that take one (JudgeOptions.Bound),
// each a function of the TTL the judge allows for, kept in one table so
// that a scenario that plays its times at another TTL
// (scenarios.Scenario.WithTTL) can scale the bound its judges would
// otherwise take.

// livenessBound is Liveness's and BarrierSafety's: the TTL, for a lease
// to run out, and 2 s for a waiter to notice and take its turn.
func livenessBound(ttl time.Duration) time.Duration { return addTime(ttl, 2*time.Second) }

// discoveryBound is DiscoveryConvergence's: how long resolvers may lag.
func discoveryBound(time.Duration) time.Duration { return defaultDiscoveryBound }

// leftBehindBound is LeftBehind's: how long past the TTL a key may still
// be listed.
func leftBehindBound(time.Duration) time.Duration { return 2 * time.Second }

// keysOnLeasesBound is KeysOnLeases's: how long past the TTL a lease whose
// process ended may still be held — two TTLs and 3 s, since etcd expires a
// lease on its leader's clock and a new leader renews every lease.
func keysOnLeasesBound(ttl time.Duration) time.Duration { return 2*ttl + 3*time.Second }

// defaultBounds is, for each judge that takes a bound, its default.
var defaultBounds = map[Name]func(ttl time.Duration) time.Duration{
	CheckerLiveness:             livenessBound,
	CheckerBarrierSafety:        livenessBound,
	CheckerDiscoveryConvergence: discoveryBound,
	CheckerLeftBehind:           leftBehindBound,
	CheckerKeysOnLeases:         keysOnLeasesBound,
}

// DefaultBound returns the bound judge name takes when JudgeOptions.Bound
// is 0, on a run whose session TTL is ttl; ok is false for a judge that
// takes no bound.
func DefaultBound(name Name, ttl time.Duration) (bound time.Duration, ok bool) {
	f, ok := defaultBounds[name]
	if !ok {
		return 0, false
	}
	return f(ttl), true
}

// RequestTimeout is how long an etcd member holds a request it cannot
// commit — a write proposed on a member cut off from its quorum — before
// it fails it: 5 s and two election timeouts, as etcd's
// ServerConfig.ReqTimeout reckons it.
func RequestTimeout(election time.Duration) time.Duration { return 5*time.Second + 2*election }

// FaultedLivenessFloor is the least liveness bound a run under faults is
// judged by, after its last heal, on a cluster whose election timeout is
// election: a waiter that gave up while its member could not reach a
// quorum withdraws its key with a delete (concurrency.Mutex and
// concurrency.Election do so with the client's own context) that the
// member holds for up to RequestTimeout, and every waiter queued behind
// that key waits as long; then a second for the next in line to notice,
// take its turn and say so. Measured on a careful mutex (TTL 1 s,
// patience 450 ms, the leader partitioned for 500 ms at a release): the
// lock stayed free 4.82–4.95 s after the heal in 3 of 6 runs, until the
// given-up waiters' deletes failed 5.2 s after their give-up, with no
// client connection lost or retried.
func FaultedLivenessFloor(election time.Duration) time.Duration {
	return RequestTimeout(election) + time.Second
}

package cluster

import "errors"

// Sentinel errors; the errors returned wrap them with the member, client or
// link involved, so test them with errors.Is.
var (
	// ErrClosed is returned by any call on a cluster after Close, and on
	// a zero Cluster, which was never started.
	ErrClosed = errors.New("cluster: closed")
	// ErrUnknownNode names a member or client that does not exist.
	ErrUnknownNode = errors.New("cluster: no member or client named")
	// ErrNotRunning is returned by Kill or Stop of a member that is down.
	ErrNotRunning = errors.New("cluster: member is not running")
	// ErrRunning is returned by Restart of a member that is up.
	ErrRunning = errors.New("cluster: member is already running")
	// ErrNoLeader is returned when no quorum agrees on a leader in time.
	ErrNoLeader = errors.New("cluster: no leader agreed by a quorum")
	// ErrCrashed is returned by Client and CrashClient for a client that
	// CrashClient took down and RestartClient has not brought back.
	ErrCrashed = errors.New("cluster: client is crashed")
	// ErrFrozen is returned by Freeze of a member frozen already, and by
	// Stop of a frozen member.
	ErrFrozen = errors.New("cluster: member is frozen")
	// ErrNotPinned is returned by PinnedMember for a client that has no
	// open stream yet and links to several members.
	ErrNotPinned = errors.New("cluster: client is pinned to no member")
)

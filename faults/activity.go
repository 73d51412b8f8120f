package faults

import (
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Kind is what a client reports doing. The kinds below feed the Env's
// holders; a workload may report kinds of its own for triggers to match.
type Kind string

const (
	// Session: the client opened a session; Lease is its lease.
	Session Kind = "session"
	// Acquired: the client acquired the lock Key (under Lease, if set).
	Acquired Kind = "acquired"
	// Released: the client released the lock Key.
	Released Kind = "released"
	// Elected: the client won the election Key (under Lease, if set).
	Elected Kind = "elected"
	// Resigned: the client gave up leading the election Key.
	Resigned Kind = "resigned"
)

// Activity is one thing a client of the workload did, as it reports it to
// Env.Notify.
type Activity struct {
	Kind   Kind             `json:"kind"`
	Client string           `json:"client"`
	Key    string           `json:"key,omitempty"`   // lock or election name
	Lease  clientv3.LeaseID `json:"lease,omitempty"` // the client's session lease, if known
}

func (a Activity) String() string {
	s := fmt.Sprintf("%s %s", a.Client, a.Kind)
	if a.Key != "" {
		s += " " + a.Key
	}
	return s
}

// Holders says which client holds a lock, leads an election, or owns a
// session lease now. The Env answers from what Notify reported; a
// workload with better knowledge sets Config.Holders.
type Holders interface {
	LockHolder(lock string) (client string, ok bool)
	ElectionLeader(election string) (client string, ok bool)
	SessionLease(client string) (lease clientv3.LeaseID, ok bool)
}

// Notify tells the Env what a client did. It updates what the Env knows
// of holders and leases, then fires every armed trigger of a running
// schedule that matches, before it returns: a fault aimed at a lock's
// holder right after it acquires lands before that client's next step.
// Each trigger fires once.
func (e *Env) Notify(a Activity) {
	e.mu.Lock()
	switch a.Kind {
	case Acquired:
		e.locks[a.Key] = a.Client
	case Released:
		if e.locks[a.Key] == a.Client {
			delete(e.locks, a.Key)
		}
	case Elected:
		e.leaders[a.Key] = a.Client
	case Resigned:
		if e.leaders[a.Key] == a.Client {
			delete(e.leaders, a.Key)
		}
	}
	if a.Lease != 0 {
		e.leases[a.Client] = int64(a.Lease)
	}
	var fire []*armedTrigger
	for _, t := range e.armed {
		if !t.fired && t.trigger.On.matches(a) {
			t.fired = true
			fire = append(fire, t)
		}
	}
	e.mu.Unlock()
	for _, t := range fire {
		t.fire(e, a)
	}
}

// LockHolder returns the client that last reported acquiring lock and has
// not released it.
func (e *Env) LockHolder(lock string) (string, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	c, ok := e.locks[lock]
	return c, ok
}

// ElectionLeader returns the client that last reported winning election
// and has not resigned.
func (e *Env) ElectionLeader(election string) (string, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	c, ok := e.leaders[election]
	return c, ok
}

// SessionLease returns the lease the client last reported.
func (e *Env) SessionLease(client string) (clientv3.LeaseID, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	l, ok := e.leases[client]
	return clientv3.LeaseID(l), ok
}

func (e *Env) holders() Holders {
	if e.custom != nil {
		return e.custom
	}
	return e
}

// Match selects activities. Empty fields match anything.
type Match struct {
	Kind   Kind   `json:"kind,omitempty"`
	Client string `json:"client,omitempty"`
	Key    string `json:"key,omitempty"`
}

func (m Match) matches(a Activity) bool {
	return (m.Kind == "" || m.Kind == a.Kind) &&
		(m.Client == "" || m.Client == a.Client) &&
		(m.Key == "" || m.Key == a.Key)
}

func (m Match) String() string {
	s := string(m.Kind)
	if s == "" {
		s = "any activity"
	}
	if m.Client != "" {
		s = m.Client + " " + s
	} else {
		s = "any client " + s
	}
	if m.Key != "" {
		s += " " + m.Key
	}
	return s
}

package program

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// request is one line etcdsim writes on the program's stdin. Every request
// but cancel carries an id and gets exactly one answer with that id. See
// docs/protocol.md for what each op takes and answers.
type request struct {
	ID int64  `json:"id,omitempty"`
	Op string `json:"op"`

	// init
	Family       string   `json:"family,omitempty"`
	Role         string   `json:"role,omitempty"` // discovery: registrar or resolver
	Name         string   `json:"name,omitempty"`
	Client       string   `json:"client,omitempty"` // the simulated client the program is ("c1"), as faults and reports name it
	Endpoints    []string `json:"endpoints,omitempty"`
	TTL          int64    `json:"ttl,omitempty"`
	Count        int      `json:"count,omitempty"` // barrier: how many processes
	RPCTimeoutMs int64    `json:"rpc_timeout_ms,omitempty"`

	// every op that may wait: what is left of the caller's deadline
	TimeoutMs int64 `json:"timeout_ms,omitempty"`
	// release, put, owned, proclaim, resign
	Handle string `json:"handle,omitempty"`
	// put, get, delete, cas, campaign, proclaim, enqueue
	Key   string `json:"key,omitempty"`
	Value string `json:"value,omitempty"`
	// rwmutex acquire: a shared (read) hold
	Read bool `json:"read,omitempty"`
	// enqueue with the feature "priority"
	Priority int `json:"priority,omitempty"`
	// cas: the value the key must hold, or that it must be missing
	Expect        string `json:"expect,omitempty"`
	ExpectMissing bool   `json:"expect_missing,omitempty"`
	// get: a serializable read
	Serializable bool `json:"serializable,omitempty"`
	// register: the instance's address
	Addr string `json:"addr,omitempty"`
	// commit: the writes the transaction staged
	Writes []write `json:"writes,omitempty"`
	// cancel: the id of the request the caller gave up on
	Of int64 `json:"of,omitempty"`
}

// answer is one line the program writes on its stdout: an answer to a
// request (ID and OK set) or an event (Event set, no ID).
type answer struct {
	ID    int64  `json:"id"`
	OK    *bool  `json:"ok"`
	Event string `json:"event"`
	Error string `json:"error"`
	Text  string `json:"text"`

	// init
	Recipe   string   `json:"recipe"`
	Features []string `json:"features"`
	Unfenced string   `json:"unfenced"` // why a lock's tokens or an election's terms are all 0; "" if they are not
	// acquire, campaign; done events
	Handle string  `json:"handle"`
	Key    string  `json:"key"`
	Token  int64   `json:"token"`
	Lease  leaseID `json:"lease"`
	// put, delete, cas, commit
	Revision int64 `json:"revision"`
	// owned
	Owned bool `json:"owned"`
	// leader answers and leader events; get, dequeue: the value
	Value string `json:"value"`
	Term  int64  `json:"term"`
	Rev   int64  `json:"rev"`
	// get: whether the key exists, its mod revision, the read's revision
	Exists bool  `json:"exists"`
	ModRev int64 `json:"mod_rev"`
	Header int64 `json:"header"`
	// delete: how many keys went; cas: whether it swapped
	Deleted   int64 `json:"deleted"`
	Succeeded bool  `json:"succeeded"`
	// pending
	Count int `json:"count"`
	// watch answers and endpoints events
	Endpoints []endpoint `json:"endpoints"`
}

// write is one put a transaction staged, sent with its commit.
type write struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// endpoint is one instance of a service, as a resolver's watch lists it.
type endpoint struct {
	Key  string `json:"key"`
	Addr string `json:"addr"`
}

// leaseID is an etcd lease ID as the protocol carries it: a decimal
// string, since IDs pass 2^53 and a JavaScript number would round them. A
// JSON number is taken too, for programs in languages whose integers are
// exact.
type leaseID int64

func (l *leaseID) UnmarshalJSON(b []byte) error {
	var s string
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
	} else {
		s = string(b)
	}
	if s == "" || s == "null" {
		*l = 0
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("lease %s: want a decimal string such as \"7587882340110523400\"", b)
	}
	*l = leaseID(n)
	return nil
}

// The error codes an answer with "ok": false may carry; others are taken
// as an error whose outcome is unknown.
const (
	codeNotHeld     = "not_held"
	codeNotLeader   = "not_leader"
	codeNoLeader    = "no_leader"
	codeTimeout     = "timeout"
	codeUnsupported = "unsupported"
	codeEmpty       = "empty"      // pending found none, dequeue
	codeFull        = "full"       // enter: the barrier holds its count
	codeLeaseLost   = "lease_lost" // enter: the session lease went while waiting
	codeHeld        = "held"       // hold: the barrier is up already
	codeConflict    = "conflict"   // commit: a key read changed; try again
)

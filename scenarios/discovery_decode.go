package scenarios

import (
	"fmt"

	"github.com/etcdsim/etcdsim/discovery"
)

// A registrar that writes a record format of its own is judged alone by
// handing the scenario its decoder: the run's resolvers — the correct
// relisting one beside a user's registrar, or a user's resolver beside
// the keepalive registrar — read etcd's records through it
// (discovery.Options.Decode). A record the decoder cannot read leaves the
// resolver's set unvouched for (discovery.State.Err): that report is
// recorded failed, not judged, and the run says which record, in a
// sentence, rather than counting a missing instance as a violation.

// WithDecoder gives the scenario the decoder of its registrar's records:
//
//	for _, s := range scenarios.DiscoverySafety(myRegistrar) {
//		scenarios.Test(t, s.WithDecoder(myDecode))
//	}
//
// A nil decode means the record of etcd's endpoints manager. A decoder
// cannot cross JSON: a replay needs the program that set it, as a
// registrar of one's own does (a replay without it reads every record
// as unreadable, and says so).
func (s Scenario) WithDecoder(decode discovery.Decode) Scenario {
	s.Workload.Decode = decode
	return s
}

// decodeSlot carries Workload.Decode where recipe values are carried
// (CarryRecipes): it is no recipe, has no name and needs no lookup.
var decodeSlot = slot{
	field:   "decode",
	with:    "WithDecoder",
	own:     func(Workload) (string, func() error, bool) { return "", nil, false },
	lookup:  func(string) error { return nil },
	carry:   func(to *Workload, from Workload) { to.Decode = from.Decode },
	command: func(Workload) []string { return nil },
}

// decoder returns the decoder the workload's resolvers read with.
func (w Workload) decoder() discovery.Decode {
	if w.Decode != nil {
		return w.Decode
	}
	return discovery.DecodeEndpoint
}

// unreadShown is how many unreadable records a run names each in a
// sentence of its own; the rest are counted in one more.
const unreadShown = 3

// unreadNotes are the unreadable records a run has noted.
type unreadNotes struct {
	keys map[string]bool // the keys noted
	more int             // where in the list the sentence counting the rest is, -1 for none yet
}

// noteUnreadable says each record err reports its resolver could not
// read: the first few in a sentence each, once per key, and the rest
// counted in one sentence.
func (w *world) noteUnreadable(err error) {
	hint := ""
	if w.s.Workload.Decode == nil {
		hint = "; a registrar that writes a record format of its own is judged with its decoder (Scenario.WithDecoder)"
	}
	n := w.notes
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	u := &n.unread
	if u.keys == nil {
		u.keys, u.more = map[string]bool{}, -1
	}
	for _, r := range discovery.Unreadable(err) {
		if u.keys[r.Key] {
			continue
		}
		u.keys[r.Key] = true
		if len(u.keys) <= unreadShown {
			n.list = append(n.list, fmt.Sprintf("%s; the resolver's sets that held it were not judged: the record is counted unreadable, not as a missing instance%s",
				r.Error(), hint))
			continue
		}
		more := fmt.Sprintf("discovery: the decoder could not read the records at %d more keys, the last %q; the sets that held them were not judged", len(u.keys)-unreadShown, r.Key)
		if u.more < 0 {
			u.more = len(n.list)
			n.list = append(n.list, more)
		} else {
			n.list[u.more] = more
		}
	}
}

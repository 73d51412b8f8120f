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

// noteUnreadable says, once per record, each record err reports its
// resolver could not read.
func (w *world) noteUnreadable(err error) {
	for _, u := range discovery.Unreadable(err) {
		hint := ""
		if w.s.Workload.Decode == nil {
			hint = "; a registrar that writes a record format of its own is judged with its decoder (Scenario.WithDecoder)"
		}
		w.notes.addOnce(fmt.Sprintf("%s; the resolver's sets that held it were not judged: the record is counted unreadable, not as a missing instance%s",
			u.Error(), hint))
	}
}

package checker

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
)

// pinnedLoss is the story SessionKept exists for: c1 holds L from 0.5s on
// lease 0x1f; at 1.1s m1, the member its keepalive stream is on, goes
// dark with its connections open; m0 and m2 keep a quorum; at 12.2s c1's
// Done closes (TTL 10s). extra faults are added to the window.
func pinnedLoss(extra ...FaultEvent) History {
	dark := healed("isolate(pinned c1)", 1.1, 20)
	dark.Action, dark.Targets, dark.Pinned = "isolate", []string{"m1"}, "c1"
	h := withFaults(hist(
		mk("c1", KindAcquire, "L", 0, 0.5, lease(0x1f)),
		mk("c1", KindLost, "L", 12.2, 12.2),
		mk("c1", KindRelease, "L", 12.3, 12.4),
	), append([]FaultEvent{dark}, extra...)...)
	h.SessionTTL = 10 * time.Second
	h.Members = []string{"m0", "m1", "m2"}
	return h
}

// edit returns h changed by f.
func edit(h History, f func(*History)) History {
	f(&h)
	return h
}

// memberFault is a healed fault of action aimed at members, from start to
// end seconds.
func memberFault(action string, start, end float64, ms ...string) FaultEvent {
	f := healed(action+"("+strings.Join(ms, ",")+")", start, end)
	f.Action, f.Targets = action, ms
	return f
}

func TestSessionKept(t *testing.T) {
	const fix = "set the client's DialKeepAliveTime and DialKeepAliveTimeout"
	for _, tc := range []struct {
		name string
		h    History
		opts SessionKeptOptions
		want Verdict
		msg  string
	}{
		{
			name: "the pinned member dark, the other two standing",
			h:    pinnedLoss(),
			want: VerdictViolation,
			msg: "c1's session (lease 1f) was lost at 12.200s (its holder's Done on lock L closed) while members m0 and m2 " +
				"(a quorum of 3) stood and c1 could reach them, from 0.000s to 12.200s, no fault was aimed at it, and from " +
				"7.200s to 12.200s the cluster had settled (a renewal would have been answered); " +
				"its keepalive stream stayed on m1, dark since 1.100s (isolate(pinned c1)): clientv3 keeps",
		},
		{
			name: "the fix's sentence",
			h:    pinnedLoss(),
			want: VerdictViolation,
			msg:  fix,
		},
		{
			name: "a member killed, its stream's member not recorded",
			h: edit(pinnedLoss(), func(h *History) {
				h.Faults = []FaultEvent{memberFault("kill", 1.1, 20, "m1")}
			}),
			want: VerdictViolation,
			msg:  "m1 was dark from 1.100s (kill(m1))",
		},
		{
			name: "a leader's Done closed",
			h: edit(pinnedLoss(), func(h *History) {
				h.Ops = hist(
					mk("c1", KindCampaign, "E", 0, 0.5, lease(0x2a)),
					mk("c1", KindResign, "E", 12.2, 12.2),
				).Ops
			}),
			want: VerdictViolation,
			msg:  "c1's session (lease 2a) was lost at 12.200s (its leadership's Done in election E closed)",
		},
		{
			name: "a thread of the process, every member up",
			h: edit(pinnedLoss(), func(h *History) {
				h.Faults = nil
				h.Ops = hist(mk("c1/2", KindAcquire, "L", 0, 0.5, lease(0x1f)), mk("c1/2", KindLost, "L", 12.2, 12.2)).Ops
			}),
			want: VerdictViolation,
			msg:  "every member stood: nothing in the cluster ended it",
		},
		{
			name: "faults aimed at other clients",
			h:    pinnedLoss(aimed("pause", "c2", 2, 8), aimed("revoke-lease", "c3", 3, 3)),
			want: VerdictViolation,
			msg:  "stood and c1 could reach them",
		},
		{
			name: "a compaction may end a Done that follows a watch",
			h:    pinnedLoss(FaultEvent{Name: "compact", Action: "compact", Start: at(11), End: at(11), Healed: true}),
			want: VerdictOK,
		},
		{
			name: "no loss",
			h: edit(pinnedLoss(), func(h *History) {
				h.Ops = h.Ops[:1]
			}),
			want: VerdictOK,
		},
		{
			name: "a leader that resigned when asked",
			h: edit(pinnedLoss(), func(h *History) {
				h.Ops = hist(mk("c1", KindCampaign, "E", 0, 0.5, lease(0x2a)), mk("c1", KindResign, "E", 12.2, 12.2, value(ResignAsked))).Ops
			}),
			want: VerdictOK,
		},
		{
			name: "the client itself cut off",
			h:    pinnedLoss(aimed("isolate", "c1", 2, 3)),
			want: VerdictOK,
		},
		{
			name: "the client's lease revoked",
			h:    pinnedLoss(aimed("revoke-lease", "c1", 5, 5)),
			want: VerdictOK,
		},
		{
			name: "the client crashed in the window",
			h:    edit(pinnedLoss(), func(h *History) { *h = withOp(*h, crash("c1", 4)) }),
			want: VerdictOK,
		},
		{
			name: "a second member dark: no quorum",
			h:    pinnedLoss(memberFault("kill", 9, 10, "m2")),
			want: VerdictOK,
		},
		{
			name: "a delay of the members may explain it",
			h:    pinnedLoss(memberFault("delay", 2, 4, "m0", "m2")),
			want: VerdictOK,
		},
		{
			name: "a fault long before the window explains nothing",
			h: edit(pinnedLoss(aimed("isolate", "c1", 0, 0.1), memberFault("kill", 0, 0.1, "m2")), func(h *History) {
				h.Ops = hist(mk("c1", KindAcquire, "L", 0, 0.5, lease(0x1f)), mk("c1", KindLost, "L", 40, 40)).Ops
			}),
			want: VerdictViolation,
			msg:  "from 19.000s to 40.000s, no fault was aimed at it, and from 35.000s to 40.000s the cluster had settled",
		},
		{
			name: "a member gone dark shortly before: the cluster may not have settled",
			h: edit(pinnedLoss(), func(h *History) {
				h.Faults[0].Start = at(9)
			}),
			want: VerdictOK,
		},
		{
			name: "a member come back shortly before: the cluster may not have settled",
			h: edit(pinnedLoss(), func(h *History) {
				h.Faults[0].End = at(10)
			}),
			want: VerdictOK,
		},
		{
			name: "a TTL too short to tell a settled stretch",
			h:    pinnedLoss(),
			opts: SessionKeptOptions{TTL: 4 * time.Second},
			want: VerdictOK,
		},
		{
			name: "a fault never healed lasts",
			h: pinnedLoss(func() FaultEvent {
				f := aimed("pause", "c1", 0, 0.1)
				f.Healed, f.End = false, f.Start
				return f
			}()),
			opts: SessionKeptOptions{TTL: time.Second},
			want: VerdictOK,
		},
		{
			name: "a client that talks only to the dark member",
			h: edit(pinnedLoss(), func(h *History) {
				h.Links = map[string][]string{"c1": {"m1"}}
			}),
			want: VerdictOK,
		},
		{
			name: "a client that talks to a member that stood",
			h: edit(pinnedLoss(), func(h *History) {
				h.Links = map[string][]string{"c1": {"m1", "m2"}}
			}),
			want: VerdictViolation,
			msg:  "stood and c1 could reach them",
		},
		{
			name: "no members recorded",
			h: edit(pinnedLoss(), func(h *History) {
				h.Members = nil
			}),
			want: VerdictUnknown,
			msg:  "does not name the cluster's members",
		},
		{
			name: "no TTL",
			h: edit(pinnedLoss(), func(h *History) {
				h.SessionTTL = 0
			}),
			want: VerdictUnknown,
			msg:  "no session TTL is known",
		},
		{
			name: "a loss with no take",
			h: edit(pinnedLoss(), func(h *History) {
				h.Ops = hist(mk("c1", KindLost, "L", 12.2, 12.2)).Ops
			}),
			want: VerdictInvalid,
			msg:  "a lost with no acquire of \"L\" by c1 before it",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := SessionKept(tc.h, tc.opts)
			if tc.want == VerdictUnknown { // an unknown says why in its summary
				checkResult(t, res, tc.want, "")
				if !strings.Contains(res.Summary, tc.msg) {
					t.Errorf("summary %q, want it to say %q", res.Summary, tc.msg)
				}
				return
			}
			checkResult(t, res, tc.want, tc.msg)
		})
	}
}

// TestSessionKeptOlderHistory: a version 4 history, read back, names no
// members, and its losses cannot be judged.
func TestSessionKeptOlderHistory(t *testing.T) {
	h := pinnedLoss()
	h.Members = nil
	for i := range h.Faults {
		h.Faults[i].Pinned = ""
	}
	var b bytes.Buffer
	if err := h.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	old := strings.Replace(b.String(), fmt.Sprintf(`"version":%d`, HistoryVersion), `"version":4`, 1)
	if old == b.String() {
		t.Fatalf("no version %d in %s", HistoryVersion, b.String())
	}
	back, err := ReadHistory(strings.NewReader(old))
	if err != nil {
		t.Fatal(err)
	}
	res := SessionKept(back, SessionKeptOptions{})
	checkResult(t, res, VerdictUnknown, "")
	if !strings.Contains(res.Summary, "does not name the cluster's members") {
		t.Errorf("summary %q, want it to say the members are not named", res.Summary)
	}
}

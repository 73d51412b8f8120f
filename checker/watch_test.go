package checker

import "testing"

// event is a watch event on key k at revision r, received at t seconds.
func event(watcher, prefix, k string, r int64, t float64) Operation {
	return mk(watcher, KindWatchEvent, prefix, t, t, withOut(Output{Key: k, Revision: r}))
}

func watchFrom(watcher, prefix string, from int64, call, ret float64, mods ...mod) Operation {
	return mk(watcher, KindWatch, prefix, call, ret, append([]mod{withIn(Input{Revision: from})}, mods...)...)
}

func TestWatchGuarantees(t *testing.T) {
	// Committed changes: /p/a at 10, /p/b at 11, /q/x at 12, /p/a at 13.
	commits := []Operation{
		mk("c1", KindWrite, "/p/a", 1, 1.1, value("1"), rev(10)),
		mk("c1", KindCAS, "/p/b", 2, 2.1, withIn(Input{ExpectMissing: true, Value: "2"}), withOut(Output{Succeeded: true, Revision: 11})),
		mk("c1", KindWrite, "/q/x", 3, 3.1, value("3"), rev(12)),
		mk("c1", KindDelete, "/p/a", 4, 4.1, rev(13)),
		mk("c1", KindCAS, "/p/a", 4, 4.1, withIn(Input{Expect: "9", Value: "2"}), rev(13)), // compare failed: no change
	}
	ops := func(more ...Operation) History { return hist(append(append([]Operation{}, commits...), more...)...) }
	tests := []struct {
		name    string
		h       History
		want    Verdict
		wantMsg string
	}{
		{
			name: "every change in order",
			h: ops(
				watchFrom("w1", "/p/", 10, 0.5, 20),
				event("w1", "/p/", "/p/a", 10, 1.2),
				event("w1", "/p/", "/p/b", 11, 2.2),
				event("w1", "/p/", "/p/a", 13, 4.2),
			),
			want: VerdictOK,
		},
		{
			name: "watching from now starts at the first event",
			h: ops(
				watchFrom("w1", "/p/", 0, 1.5, 20),
				event("w1", "/p/", "/p/b", 11, 2.2),
				event("w1", "/p/", "/p/a", 13, 4.2),
			),
			want: VerdictOK,
		},
		{
			name: "a change not yet due when the stream closed",
			h: ops(
				watchFrom("w1", "/p/", 10, 0.5, 5),
				event("w1", "/p/", "/p/a", 10, 1.2),
				event("w1", "/p/", "/p/b", 11, 2.2),
			),
			want: VerdictOK,
		},
		{
			name: "an event delivered twice",
			h: ops(
				watchFrom("w1", "/p/", 10, 0.5, 20),
				event("w1", "/p/", "/p/a", 10, 1.2),
				event("w1", "/p/", "/p/b", 11, 2.2),
				event("w1", "/p/", "/p/b", 11, 2.3),
				event("w1", "/p/", "/p/a", 13, 4.2),
			),
			want:    VerdictViolation,
			wantMsg: "watcher w1 on /p/ received the event for /p/b at revision 11 twice, at 2.200s and at 2.300s",
		},
		{
			name: "revisions going backwards",
			h: ops(
				watchFrom("w1", "/p/", 10, 0.5, 20),
				event("w1", "/p/", "/p/a", 10, 1.2),
				event("w1", "/p/", "/p/a", 13, 4.2),
				event("w1", "/p/", "/p/b", 11, 4.3),
			),
			want:    VerdictViolation,
			wantMsg: "watcher w1 on /p/ received revision 11 at 4.300s after revision 13 at 4.200s: revisions went backwards",
		},
		{
			name: "a gap",
			h: ops(
				watchFrom("w1", "/p/", 10, 0.5, 20),
				event("w1", "/p/", "/p/a", 10, 1.2),
				event("w1", "/p/", "/p/a", 13, 4.2),
			),
			want:    VerdictViolation,
			wantMsg: "watcher w1 on /p/ never received revision 11 (c1 cas /p/b, committed at 2.100s)",
		},
		{
			name: "a stream that stopped delivering",
			h: ops(
				watchFrom("w1", "/p/", 10, 0.5, 20),
				event("w1", "/p/", "/p/a", 10, 1.2),
				event("w1", "/p/", "/p/b", 11, 2.2),
			),
			want:    VerdictViolation,
			wantMsg: "never received revision 13 (c1 delete /p/a, committed at 4.100s) though its stream, from revision 10, was open until 20.000s",
		},
		{
			name: "re-listing after ErrCompacted",
			h: ops(
				watchFrom("w1", "/p/", 5, 0.5, 0.6, failed, withOut(Output{CompactRevision: 9})),
				mk("w1", KindList, "/p/", 0.7, 0.8, rev(10)),
				watchFrom("w1", "/p/", 11, 0.9, 20),
				event("w1", "/p/", "/p/b", 11, 2.2),
				event("w1", "/p/", "/p/a", 13, 4.2),
			),
			want: VerdictOK,
		},
		{
			name: "watching again after ErrCompacted without listing",
			h: ops(
				watchFrom("w1", "/p/", 5, 0.5, 0.6, failed, withOut(Output{CompactRevision: 9})),
				watchFrom("w1", "/p/", 10, 0.9, 20),
				event("w1", "/p/", "/p/a", 10, 1.2),
				event("w1", "/p/", "/p/b", 11, 2.2),
				event("w1", "/p/", "/p/a", 13, 4.2),
			),
			want:    VerdictViolation,
			wantMsg: "watcher w1 watched /p/ again at 0.900s after ErrCompacted at 0.600s without listing first",
		},
		{
			name: "resuming past what was seen",
			h: ops(
				mk("w1", KindList, "/p/", 0.7, 0.8, rev(10)),
				watchFrom("w1", "/p/", 13, 0.9, 20),
				event("w1", "/p/", "/p/a", 13, 4.2),
			),
			want:    VerdictViolation,
			wantMsg: "watcher w1 resumed watching /p/ at revision 13 at 0.900s, having seen only up to revision 10: it skips revision 11 (c1 cas /p/b)",
		},
		{
			name:    "an event without a revision",
			h:       hist(mk("w1", KindWatchEvent, "/p/", 0, 0)),
			want:    VerdictInvalid,
			wantMsg: "watch-event without a revision",
		},
		{
			name:    "a stream that delivered nothing",
			h:       ops(watchFrom("w1", "/p/", 10, 0.5, 20)),
			want:    VerdictViolation,
			wantMsg: "never received revision 10",
		},
		{
			name: "no watchers",
			h:    ops(),
			want: VerdictUnknown,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkResult(t, WatchGuarantees(tc.h, WatchOptions{}), tc.want, tc.wantMsg)
		})
	}
}

package checker

import "testing"

func term(n int64) mod { return granted(n) }

func observed(leader string, term int64) mod {
	return withOut(Output{Value: leader, Token: term})
}

func TestElectionSafety(t *testing.T) {
	tests := []struct {
		name    string
		h       History
		want    Verdict
		wantMsg string
	}{
		{
			name: "successive leaders with increasing terms",
			h: hist(
				mk("c1", KindCampaign, "/e", 0, 1, value("c1"), term(5)),
				mk("c2", KindCampaign, "/e", 0.5, 3, value("c2"), term(8)),
				mk("o1", KindLeaderObserved, "/e", 1.5, 1.6, observed("c1", 5)),
				mk("c1", KindResign, "/e", 2, 2.1),
				mk("o1", KindLeaderObserved, "/e", 3.5, 3.6, observed("c2", 8)),
				mk("o2", KindLeaderObserved, "/e", 3.5, 3.6, withOut(Output{Missing: true})),
				crash("c2", 4),
				mk("c3", KindCampaign, "/e", 3, 9, value("c3"), term(20)),
			),
			want: VerdictOK,
		},
		{
			name: "a leader elected while another still led",
			h: hist(
				mk("c1", KindCampaign, "/e", 0, 1, term(5)),
				mk("c2", KindCampaign, "/e", 0.5, 3, term(8)),
				mk("c1", KindResign, "/e", 4, 4.1),
			),
			want:    VerdictViolation,
			wantMsg: "c2 became leader of election /e at 3.000s while c1 led it since 1.000s; c1 resigned at 4.000s",
		},
		{
			name: "a later leadership with a smaller term",
			h: hist(
				mk("c1", KindCampaign, "/e", 0, 1, term(8)),
				mk("c1", KindResign, "/e", 2, 2.1),
				mk("c2", KindCampaign, "/e", 0.5, 3, term(5)),
			),
			want:    VerdictViolation,
			wantMsg: "c2 became leader of election /e at 3.000s with term 5, but c1 had become leader at 1.000s with term 8",
		},
		{
			name: "a resigned leader's key won its term again",
			h: hist(
				mk("c1", KindCampaign, "/e", 0, 1, value("c1-0"), term(5)),
				mk("c2", KindCampaign, "/e", 0.5, never, value("c2-0")),
				mk("c1", KindResign, "/e", 2, 2.5),
				mk("c1", KindCampaign, "/e", 3, 3.1, value("c1-1"), term(5)),
			),
			want: VerdictViolation,
			wantMsg: "c1 became leader of election /e at 3.100s with term 5 again: the leader key of term 5, won by c1 at " +
				"1.000s, was never deleted, though c1 resigned at 2.000s and was told it had",
		},
		{
			name: "the same term after a crash is a plain regression",
			h: hist(
				mk("c1", KindCampaign, "/e", 0, 1, term(5)),
				crash("c1", 2),
				mk("c2", KindCampaign, "/e", 0.5, 3, term(5)),
			),
			want:    VerdictViolation,
			wantMsg: "c2 became leader of election /e at 3.000s with term 5, but c1 had become leader at 1.000s with term 5",
		},
		{
			name: "an observer saw the term go backwards",
			h: hist(
				mk("o1", KindLeaderObserved, "/e", 1, 1.1, observed("", 8)),
				mk("o1", KindLeaderObserved, "/e", 2, 2.1, observed("", 5)),
			),
			want:    VerdictViolation,
			wantMsg: "observer o1 saw the term of election /e go back from 8 at 1.000s to 5 at 2.000s",
		},
		{
			name: "an observer saw the wrong leader for a term",
			h: hist(
				mk("c1", KindCampaign, "/e", 0, 1, value("c1"), term(5)),
				mk("o1", KindLeaderObserved, "/e", 2, 2.1, observed("c2", 5)),
			),
			want:    VerdictViolation,
			wantMsg: `observer o1 saw "c2" lead election /e in term 5 at 2.000s, but c1 won term 5 proposing "c1"`,
		},
		{
			name:    "a resign without a campaign",
			h:       hist(mk("c1", KindResign, "/e", 0, 1)),
			want:    VerdictInvalid,
			wantMsg: "resign with no matching campaign",
		},
		{
			name:    "an observation without an election",
			h:       hist(mk("o1", KindLeaderObserved, "", 0, 1)),
			want:    VerdictInvalid,
			wantMsg: "leader-observed without an election name",
		},
		{
			name: "nothing to judge",
			h:    hist(mk("c1", KindAcquire, "/jobs", 0, 1)),
			want: VerdictUnknown,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkResult(t, ElectionSafety(tc.h, ElectionOptions{}), tc.want, tc.wantMsg)
		})
	}
}

package checker

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
)

// withUsers names the clients' users in h.
func withUsers(h History, users map[string]ClientUser) History {
	h.Users = users
	return h
}

// refused makes an operation's error etcd's permission denied, wrapped as
// the election service's gRPC answer carries it.
func refused(op *Operation) {
	op.Error = "rpc error: code = Unknown desc = " + PermissionDenied
}

// electionUsers: c1 and c2 each a user granted its own election's keys,
// o1 a reader of E1's; c3's user is granted another election's.
func electionUsers() map[string]ClientUser {
	rw := func(user, p string) ClientUser {
		return ClientUser{User: user, Grants: []Grant{{Prefix: p}}, Needs: []Grant{{Prefix: p}}}
	}
	return map[string]ClientUser{
		"c1": rw("c1", "E1/"),
		"c2": rw("c2", "E2/"),
		"c3": {User: "c3", Grants: []Grant{{Prefix: "F/"}}, Needs: []Grant{{Prefix: "E2/"}}},
		"o1": {User: "o1", Grants: []Grant{{Prefix: "F/"}, {Prefix: "E", ReadOnly: true}}, Needs: []Grant{{Prefix: "E1/", ReadOnly: true}}},
	}
}

func TestPermissionDeniedIsEtcds(t *testing.T) {
	if PermissionDenied != rpctypes.ErrPermissionDenied.Error() {
		t.Fatalf("PermissionDenied %q, etcd's %q", PermissionDenied, rpctypes.ErrPermissionDenied.Error())
	}
}

func TestPermissionHeld(t *testing.T) {
	for _, tc := range []struct {
		name    string
		h       History
		verdict Verdict
		want    []string // the violations' sentences, or the summary's words
	}{
		{
			name: "a candidate refused on its own election, waiting behind another user's",
			h: withUsers(hist(mk("c1", KindCampaign, "E1", 0.1, 0.2), mk("c2", KindCampaign, "E2", 0.1, 0.2),
				mk("c2", KindCampaign, "E2", 1, never, gaveUp(1.2), refused)), electionUsers()),
			verdict: VerdictViolation,
			want:    []string{"c2 (user c2, granted readwrite on E2/) was refused campaign on election E2 at 1.200s: rpc error: code = Unknown desc = etcdserver: permission denied"},
		},
		{
			name: "a thread's failed acquire, its process's user granted a shorter prefix",
			h: withUsers(hist(mk("c1/2", KindAcquire, "L", 0.5, 0.7, failed, refused)),
				map[string]ClientUser{"c1": {User: "alice", Grants: []Grant{{Prefix: "locks/"}, {Prefix: "data/"}},
					Needs: []Grant{{Prefix: "locks/L"}, {Prefix: "data/L/"}}}}),
			verdict: VerdictViolation,
			want:    []string{"c1/2 (user alice, granted readwrite on locks/ and readwrite on data/) was refused acquire on lock L at 0.700s"},
		},
		{
			name:    "an observer's read refused, its user a reader of every key",
			h:       withUsers(hist(mk("o1", KindLeaderObserved, "E1", 2, 2.5, failed, refused)), electionUsers()),
			verdict: VerdictViolation,
			want:    []string{"o1 (user o1, granted readwrite on F/ and read on E) was refused leader-observed on election E1 at 2.500s"},
		},
		{
			name:    "a refusal deserved: the user holds another election's keys",
			h:       withUsers(hist(mk("c3", KindCampaign, "E2", 1, 1.1, failed, refused)), electionUsers()),
			verdict: VerdictOK,
			want:    []string{"1 call refused \"permission denied\", 0 of them a permission the caller's user holds"},
		},
		{
			name: "a refusal deserved: a read-only grant, a need to write",
			h: withUsers(hist(mk("c1", KindCampaign, "E1", 1, 1.1, failed, refused)),
				map[string]ClientUser{"c1": {User: "c1", Grants: []Grant{{Prefix: "E1/", ReadOnly: true}}, Needs: []Grant{{Prefix: "E1/"}}}}),
			verdict: VerdictOK,
		},
		{
			name: "an expired token is no permission refusal",
			h: withUsers(hist(mk("c2", KindCampaign, "E2", 1, never, gaveUp(1.2),
				func(op *Operation) {
					op.Error = "rpc error: code = Unknown desc = " + rpctypes.ErrInvalidAuthToken.Error()
				})), electionUsers()),
			verdict: VerdictOK,
			want:    []string{"0 calls refused"},
		},
		{
			name:    "nobody refused",
			h:       withUsers(hist(mk("c1", KindCampaign, "E1", 0.1, 0.2), mk("c2", KindCampaign, "E2", 0.1, 0.2)), electionUsers()),
			verdict: VerdictOK,
		},
		{
			name:    "no users: auth off, or not recorded",
			h:       hist(mk("c2", KindCampaign, "E2", 1, never, gaveUp(1.2), refused)),
			verdict: VerdictUnknown,
			want:    []string{"the history names no client's etcd user"},
		},
		{
			name:    "no users and nobody refused",
			h:       hist(mk("c1", KindCampaign, "E1", 0.1, 0.2)),
			verdict: VerdictUnknown,
		},
		{
			name:    "a refused client whose user is not named",
			h:       withUsers(hist(mk("c9", KindCampaign, "E1", 1, 1.1, failed, refused)), electionUsers()),
			verdict: VerdictUnknown,
			want:    []string{"client c9 was refused, and the history does not name its user (users are named for [c1 c2 c3 o1])"},
		},
		{
			name: "a refused client whose needs are not named",
			h: withUsers(hist(mk("c1", KindCampaign, "E1", 1, 1.1, failed, refused)),
				map[string]ClientUser{"c1": {User: "c1", Grants: []Grant{{Prefix: "E1/"}}}}),
			verdict: VerdictUnknown,
			want:    []string{"does not say which keys its recipe needs"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := RunJudge(CheckerPermissionHeld, tc.h, JudgeOptions{})
			if res.Verdict != tc.verdict {
				t.Fatalf("verdict %s, want %s: %s", res.Verdict, tc.verdict, res.Summary)
			}
			var text []string
			for _, v := range res.Violations {
				if v.Kind != ViolationRefusedHeldPermission {
					t.Errorf("violation of kind %q: %s", v.Kind, v.Message)
				}
				text = append(text, v.Message)
			}
			all := strings.Join(append(text, res.Summary), "\n")
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("want %q in:\n%s", w, all)
				}
			}
		})
	}
}

// TestPermissionHeldOlderHistory: a version 5 history, read back, names
// no users: unknown, not ok.
func TestPermissionHeldOlderHistory(t *testing.T) {
	h := withUsers(hist(mk("c2", KindCampaign, "E2", 1, never, gaveUp(1.2), refused)), electionUsers())
	var b bytes.Buffer
	if err := h.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if res := PermissionHeld(h, PermissionOptions{}); res.Verdict != VerdictViolation {
		t.Fatalf("as written: %s: %s", res.Verdict, res.Summary)
	}
	h.Users = nil // a version 5 history has none
	b.Reset()
	if err := h.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	old := bytes.Replace(b.Bytes(), []byte(fmt.Sprintf(`"version":%d`, HistoryVersion)), []byte(`"version":5`), 1)
	if bytes.Equal(old, b.Bytes()) {
		t.Fatalf("no version %d in %s", HistoryVersion, b.String())
	}
	back, err := ReadHistory(bytes.NewReader(old))
	if err != nil {
		t.Fatal(err)
	}
	res := PermissionHeld(back, PermissionOptions{})
	if res.Verdict != VerdictUnknown || !strings.Contains(res.Summary, "names no client's etcd user") {
		t.Errorf("a version 5 history: %s: %s; want unknown, naming no users", res.Verdict, res.Summary)
	}
}

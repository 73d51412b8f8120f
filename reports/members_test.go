package reports

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/scenarios"
)

// TestMembersRow draws the members row of a history in which m1 leads,
// is killed, nobody leads for a while, m2 leads, and m1 comes back: the
// leader spans end where the next change begins, and the kill and the
// restart are marks.
func TestMembersRow(t *testing.T) {
	s := time.Second
	leader := func(id int, at time.Duration, name string) checker.Operation {
		return checker.Operation{ID: id, Client: scenarios.LeaderClient, Kind: scenarios.KindLeader, Call: at, Return: at,
			Outcome: checker.OutcomeOK, Output: checker.Output{Value: name, Missing: name == ""}}
	}
	h := &checker.History{
		Ops: []checker.Operation{
			leader(0, 0, "m1"),
			{ID: 1, Client: "c1", Kind: checker.KindAcquire, Key: "L", Call: s / 2, Return: s, Outcome: checker.OutcomeOK},
			leader(2, 2*s, ""),
			leader(3, 3*s, "m2"),
		},
		Faults: []checker.FaultEvent{{ID: 1, Name: "kill(leader)", Targets: []string{"m1"}, Start: 2 * s, End: 4 * s, Healed: true}},
	}
	tl := buildTimeline(h, nil)
	if got := []string{tl.Rows[0].Client, tl.Rows[1].Client}; !cmp.Equal(got, []string{"members", "c1"}) || len(tl.Rows) != 2 {
		t.Fatalf("rows %v, want members then c1 only", tl.Rows)
	}
	type mark struct{ Class, X, W string }
	var got []mark
	for _, sh := range tl.Rows[0].Shapes {
		got = append(got, mark{sh.Class, sh.X, sh.W})
	}
	want := []mark{
		{"lead lead-0", "0", "2"},
		{"lead none", "2", "1"},
		{"lead lead-1", "3", "1.1"}, // to the end of the drawing
		{"member-down", "2", ""},
		{"member-up", "4", ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("members row (-want +got):\n%s", diff)
	}
	var labels []string
	for _, l := range tl.Labels {
		labels = append(labels, l.Text+"@"+l.T)
	}
	if diff := cmp.Diff([]string{"m1@0", "m2@3"}, labels); diff != "" {
		t.Errorf("leader labels (-want +got):\n%s", diff)
	}
	if y := tl.Rows[1].Y; y != tl.RowsTop+tlRowHeight {
		t.Errorf("c1's row at %v, want one row below the members row at %v", y, tl.RowsTop)
	}
}

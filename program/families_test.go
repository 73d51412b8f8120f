package program_test

import (
	"slices"
	"testing"

	"github.com/etcdsim/etcdsim/internal/recipe"
	"github.com/etcdsim/etcdsim/program"
	"github.com/etcdsim/etcdsim/scenarios"
)

// TestConformCoversTheFamilyTable ties Conform's list to the family table:
// every family the scenarios run can be checked against the protocol (the
// discovery family once per role), in the table's order, and Conform
// checks nothing the table does not have.
func TestConformCoversTheFamilyTable(t *testing.T) {
	var want []string
	for _, f := range scenarios.Families() {
		if f == recipe.Discovery {
			want = append(want, f+"/registrar", f+"/resolver")
			continue
		}
		want = append(want, f)
	}
	if got := program.ConformFamilies(); !slices.Equal(got, want) {
		t.Errorf("program.ConformFamilies() = %v\nthe family table gives %v: a family added to scenarios needs its conformance check in program/conform.go, in the same order", got, want)
	}
}

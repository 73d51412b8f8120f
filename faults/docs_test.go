package faults_test

import (
	"os"
	"strings"
	"testing"

	"github.com/etcdsim/etcdsim/faults"
)

// docs/faults.md describes every action Parse reads, by its text form, and
// every target ParseTarget reads.
func TestDocsNameEveryFault(t *testing.T) {
	b, err := os.ReadFile("../docs/faults.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, a := range faults.Actions() {
		if !strings.Contains(doc, "`"+a+"(") && !strings.Contains(doc, "`"+a+"`") {
			t.Errorf("docs/faults.md does not give the text form of %s (`%s(…)` or `%s`)", a, a, a)
		}
	}
	// ParseTarget's error for no target lists the form of every target.
	_, err = faults.ParseTarget("")
	_, list, ok := strings.Cut(err.Error(), "targets: ")
	if !ok {
		t.Fatalf("ParseTarget(\"\") = %v; want it to list the targets", err)
	}
	for _, form := range strings.Split(list, ", ") {
		if !strings.Contains(doc, "`"+form+"`") {
			t.Errorf("docs/faults.md does not name the target form `%s`", form)
		}
	}
}

package scenarios_test

import (
	"testing"

	"github.com/etcdsim/etcdsim/faults"
)

func mustParse(t *testing.T, text string) faults.Fault {
	t.Helper()
	f, err := faults.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

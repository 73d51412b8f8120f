package reports_test

import (
	"flag"
	"testing"

	"go.uber.org/goleak"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// chromedp hands each browser's output to goroutines that end once the
// process's pipes close, which the os/exec machinery sees to after
// Cancel returns; they are the only goroutines ignored.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

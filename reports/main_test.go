package reports_test

import (
	"flag"
	"testing"

	"go.uber.org/goleak"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// The browser tests start Chromium through chromedp; cancelling its
// contexts waits for the browser and its goroutines, so nothing is
// ignored.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

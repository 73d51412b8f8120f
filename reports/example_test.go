package reports_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"

	"github.com/etcdsim/etcdsim/reports"
)

// A results directory that simrun wrote is rendered from its JSON alone:
// each run's page, index.html, junit.xml and summary.md. A run that does
// not load is listed, and the rest are rendered all the same.
func ExampleRenderDir() {
	dir, err := os.MkdirTemp("", "reports-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	if err := os.CopyFS(dir, os.DirFS("testdata/results")); err != nil {
		panic(err)
	}
	err = reports.RenderDir(dir)
	fmt.Println(err != nil)
	f, err := os.Open(filepath.Join(dir, "summary.md"))
	if err != nil {
		panic(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	s.Scan()
	fmt.Println(s.Text())
	// Output:
	// true
	// ## ❌ etcdsim: 2 of 3 runs met their expectation
}

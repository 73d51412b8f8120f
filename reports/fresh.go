package reports

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/etcdsim/etcdsim/scenarios/results"
)

// buildStamp names the build of etcdsim that draws pages: a digest of the
// running program's file, so that any change to the code, the templates or
// a dependency draws every page again. It is "" when the file cannot be
// read, and then no page counts as fresh.
var buildStamp = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := os.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return "build " + hex.EncodeToString(h.Sum(nil)[:12])
})

// stampHead is how much of a page pageFresh reads to find its stamp: the
// generator line comes right after the charset.
const stampHead = 512

// pageFresh says whether the run page in the run directory dir need not
// be drawn again: it exists, is newer than both the run's result.json and
// history.json, and was drawn by the build stamp names. A page written
// within the same clock tick as its inputs counts as stale.
func pageFresh(dir, stamp string) bool {
	if stamp == "" {
		return false
	}
	f, err := os.Open(filepath.Join(dir, runPageFile))
	if err != nil {
		return false
	}
	defer f.Close()
	page, err := f.Stat()
	if err != nil {
		return false
	}
	for _, in := range []string{results.ResultFile, results.HistoryFile} {
		fi, err := os.Stat(filepath.Join(dir, in))
		if err != nil || !page.ModTime().After(fi.ModTime()) {
			return false
		}
	}
	head := make([]byte, stampHead)
	n, _ := io.ReadFull(f, head)
	return bytes.Contains(head[:n], []byte(`<meta name="generator" content="etcdsim `+stamp+`">`))
}

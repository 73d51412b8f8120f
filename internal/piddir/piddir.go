package piddir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Make makes a new directory under the system's temp dir whose name is
// prefix, this process's ID, a dash and a random part, and returns its
// path. The caller removes it; Sweep removes it once this process is gone.
func Make(prefix string) (string, error) {
	dir, err := os.MkdirTemp("", prefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return "", fmt.Errorf("piddir: %w", err)
	}
	return dir, nil
}

// Sweep finds each directory in dir named by one of prefixes, a process
// ID and a dash (as Make names them) whose process no longer runs, and
// removes them in the background: a start pays for a look at dir, not for
// deleting a killed run's data, which may be hundreds of megabytes. wait
// waits for the removal and returns how many it removed; every directory it
// could not remove is named in the error, joined. A process that exits
// before wait returns leaves what is not yet removed to the next Sweep.
// A name whose ID does not parse, this process's own, and one whose
// process runs (or whose ID has been taken by another process since) are
// left alone.
func Sweep(dir string, prefixes ...string) (wait func() (int, error)) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		err = fmt.Errorf("piddir: %w", err)
		return func() (int, error) { return 0, err }
	}
	var stale []string
	for _, e := range entries {
		pid, ok := owner(e.Name(), prefixes)
		if ok && e.IsDir() && pid != os.Getpid() && !alive(pid) {
			stale = append(stale, e.Name())
		}
	}
	if len(stale) == 0 {
		return func() (int, error) { return 0, nil }
	}
	var (
		removed int
		errs    []error
		done    = make(chan struct{})
	)
	go func() {
		defer close(done)
		for _, name := range stale {
			if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
				errs = append(errs, fmt.Errorf("piddir: removing %s, left by a process that is gone: %w", name, err))
				continue
			}
			removed++
		}
	}()
	return func() (int, error) {
		<-done
		return removed, errors.Join(errs...)
	}
}

// owner returns the process ID in name, if name is one of prefixes, an ID
// and a dash.
func owner(name string, prefixes []string) (int, bool) {
	for _, prefix := range prefixes {
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		if !ok {
			continue
		}
		if pid, err := strconv.Atoi(pidText); err == nil && pid > 0 {
			return pid, true
		}
	}
	return 0, false
}

//go:build linux || darwin

package simrun

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// stderrMovable says moveStderr can move standard error here.
const stderrMovable = true

// moveStderr points file descriptor 2 at the file at path (created or
// truncated), keeping a duplicate of the old one to put back: every
// *os.File on descriptor 2 — os.Stderr, and the copies loggers took of it
// at start-up — then writes to the file.
func moveStderr(path string) (undo func(), ok bool, err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, false, fmt.Errorf("the run's log file: %w", err)
	}
	saved, err := unix.Dup(2)
	if err != nil {
		f.Close()
		return nil, false, fmt.Errorf("keeping standard error: %w", err)
	}
	if err := unix.Dup2(int(f.Fd()), 2); err != nil {
		unix.Close(saved)
		f.Close()
		return nil, false, fmt.Errorf("sending standard error to %s: %w", path, err)
	}
	return func() {
		unix.Dup2(saved, 2)
		unix.Close(saved)
		f.Close()
	}, true, nil
}

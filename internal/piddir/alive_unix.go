//go:build unix

package piddir

import (
	"errors"
	"syscall"
)

// alive reports whether a process with ID pid runs: signal 0 reaches it,
// or it runs as another user (EPERM).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

//go:build unix

package memberbin

import (
	"errors"
	"os/exec"
	"syscall"
)

// signalMember sends sig to the process group of a member binary (the
// program alone: it starts nothing).
func signalMember(cmd *exec.Cmd, sig syscall.Signal) error {
	return syscall.Kill(-cmd.Process.Pid, sig)
}

// processAlive reports whether a process with this ID exists.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

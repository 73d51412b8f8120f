//go:build unix

package memberbin

import (
	"os/exec"
	"syscall"
)

// signalMember sends sig to the process group of a member binary (the
// program alone: it starts nothing).
func signalMember(cmd *exec.Cmd, sig syscall.Signal) error {
	return syscall.Kill(-cmd.Process.Pid, sig)
}

//go:build unix && !linux

package memberbin

import (
	"os/exec"
	"syscall"
)

// setMemberProcAttr puts a member binary into a process group of its own,
// so that a terminal's Ctrl-C reaches only this process, which closes its
// clusters. Without Linux's parent-death signal, a member binary outlives a
// process killed outright until it sees its stdin close, which it watches.
func setMemberProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

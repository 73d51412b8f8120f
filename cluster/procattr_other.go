//go:build unix && !linux

package cluster

import (
	"os/exec"
	"syscall"
)

// setMemberProcAttr puts a member process into a process group of its own,
// so that a terminal's Ctrl-C reaches only this process, which closes its
// clusters. Without Linux's parent-death signal, a member outlives a
// process killed outright until it sees its stdin close, which it watches.
func setMemberProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

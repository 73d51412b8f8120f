package memberbin

import (
	"os/exec"
	"syscall"
)

// setMemberProcAttr puts a member binary into a process group of its own,
// so that a terminal's Ctrl-C reaches only this process, which closes its
// clusters, and has the kernel kill it if this process dies first (a
// second Ctrl-C, SIGKILL): no member outlives the process that started
// it. The binary also ends when its stdin closes, which covers a death
// the kernel's signal misses (the thread that started it having ended).
func setMemberProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

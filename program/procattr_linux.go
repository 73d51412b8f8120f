package program

import "syscall"

// sysProcAttr puts a program into a process group of its own, so that a
// kill or a freeze reaches whatever it starts as well, and has Linux kill
// it when the thread that started it ends (prog.run holds that thread as
// long as the program runs): a run killed with SIGKILL, which runs no
// cleanup, takes its programs with it, even one that ignores its stdin
// closing and SIGTERM.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

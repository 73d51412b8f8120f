//go:build !linux

package program

import "syscall"

// sysProcAttr puts a program into a process group of its own, so that a
// kill or a freeze reaches whatever it starts as well. There is no
// parent-death signal here: a run killed with SIGKILL leaves its programs
// running until their stdin's closing ends them.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

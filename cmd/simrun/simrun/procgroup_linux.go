package simrun

import (
	"os/exec"
	"syscall"
)

// childSupported says that runs can go to child processes here: Linux
// has process groups and a parent-death signal.
const childSupported = true

// setChildGroup puts the child cmd starts into a process group of its own,
// so that one signal reaches it and anything it starts, and a terminal's
// Ctrl-C reaches only simrun, which forwards it. The child is killed if
// simrun dies first (a second Ctrl-C, SIGKILL), so that no cluster
// outlives the simrun that started it.
func setChildGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// signalGroup sends sig to the process group whose leader is pid.
func signalGroup(pid int, sig syscall.Signal) error {
	return syscall.Kill(-pid, sig)
}

// signalProcess sends sig to the process pid alone.
func signalProcess(pid int, sig syscall.Signal) error {
	return syscall.Kill(pid, sig)
}

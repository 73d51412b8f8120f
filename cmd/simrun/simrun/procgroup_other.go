//go:build !linux

package simrun

import (
	"errors"
	"os/exec"
	"syscall"
)

// childSupported is false where simrun does not manage child processes:
// runs stay in the simrun process, as with -inprocess.
const childSupported = false

func setChildGroup(*exec.Cmd) {}

func signalGroup(int, syscall.Signal) error {
	return errors.New("simrun: child processes are supported on Linux only")
}

func signalProcess(int, syscall.Signal) error {
	return errors.New("simrun: child processes are supported on Linux only")
}

//go:build !unix

package cluster

import (
	"errors"
	"os/exec"
	"syscall"
)

var errNoMemberProcesses = errors.New("cluster: Config.MemberProcesses needs a Unix system: members are stopped and resumed with signals")

func setMemberProcAttr(*exec.Cmd)                  {}
func signalMember(*exec.Cmd, syscall.Signal) error { return errNoMemberProcesses }
func processAlive(int) bool                        { return true }

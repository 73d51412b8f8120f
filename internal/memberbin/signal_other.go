//go:build !unix

package memberbin

import (
	"errors"
	"os/exec"
	"syscall"
)

var errNoMemberBinaries = errors.New("memberbin: member binaries need a Unix system: members are stopped and resumed with signals")

func setMemberProcAttr(*exec.Cmd)                  {}
func signalMember(*exec.Cmd, syscall.Signal) error { return errNoMemberBinaries }

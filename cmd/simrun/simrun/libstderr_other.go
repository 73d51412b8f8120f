//go:build !linux && !darwin

package simrun

// stderrMovable says moveStderr can move standard error here.
const stderrMovable = false

// moveStderr cannot move standard error here: the libraries of an
// in-process run log to this process's.
func moveStderr(string) (undo func(), ok bool, err error) { return nil, false, nil }

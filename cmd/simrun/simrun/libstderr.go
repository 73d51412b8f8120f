package simrun

import "sync"

// libStderrMu serializes the in-process runs whose libraries' standard
// error goes to a file: the process has one standard error.
var libStderrMu sync.Mutex

// libraryStderrTo sends what this process writes to its standard error —
// the run's libraries' logs (clientv3's default logger, vitess's, glog),
// which write there themselves — to the file at path until restore is
// called, as a child's child.log has them. simrun's own messages must wait
// for restore. ok is false where the process's standard error cannot be
// moved (it then stays where it was, and restore does nothing).
func libraryStderrTo(path string) (restore func(), ok bool, err error) {
	libStderrMu.Lock()
	undo, ok, err := moveStderr(path)
	if err != nil || !ok {
		libStderrMu.Unlock()
		return func() {}, ok, err
	}
	return func() {
		undo()
		libStderrMu.Unlock()
	}, true, nil
}

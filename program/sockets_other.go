//go:build !linux

package program

import "errors"

// remoteAddrs cannot say here which connections a process holds.
func remoteAddrs(int) ([]string, error) {
	return nil, errors.New("process: a program's connections are read from /proc, which is Linux's")
}

//go:build !unix

package piddir

// alive takes every process to be running where it cannot ask: nothing is
// swept.
func alive(int) bool { return true }

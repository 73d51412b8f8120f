package wallclock

import (
	"syscall"
	"time"
)

// Now returns the wall-clock time, read by a system call that the time
// package, and so a synctest bubble's virtual clock, does not stand
// between. It costs about as much as time.Now: the kernel answers it from
// the vDSO, without a switch to kernel mode.
func Now() time.Time {
	var tv syscall.Timeval
	if err := syscall.Gettimeofday(&tv); err != nil {
		return time.Now()
	}
	return time.Unix(tv.Unix())
}

// Since returns the wall-clock time elapsed since t, which Now returned.
func Since(t time.Time) time.Duration { return Now().Sub(t) }

// Virtual reports whether the calling goroutine's time.Now reads a
// synctest bubble's virtual clock: outside a bubble time.Now and Now read
// one clock and agree to within microseconds, while a bubble's clock
// starts at midnight UTC on 2000-01-01.
func Virtual() bool { return Now().Sub(time.Now()) > 24*time.Hour }

package simrun

import (
	"runtime/debug"
	"testing"
)

// A child tunes its collector unless its environment chose: GOGC or
// GOMEMLIMIT set leaves the runtime's settings as they are.
func TestTuneChildGC(t *testing.T) {
	percent, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	})
	for _, tt := range []struct {
		name        string
		env         map[string]string
		wantChanged bool
	}{
		{name: "no GOGC or GOMEMLIMIT", env: nil, wantChanged: true},
		{name: "GOGC set", env: map[string]string{"GOGC": "50"}, wantChanged: false},
		{name: "GOMEMLIMIT set", env: map[string]string{"GOMEMLIMIT": "2GiB"}, wantChanged: false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			debug.SetGCPercent(100)
			debug.SetMemoryLimit(1 << 40)
			changed := tuneChildGC(func(k string) string { return tt.env[k] })
			gotPercent, gotLimit := debug.SetGCPercent(100), debug.SetMemoryLimit(1<<40)
			wantPercent, wantLimit := 100, int64(1<<40)
			if tt.wantChanged {
				wantPercent, wantLimit = childGCPercent, childMemoryLimit
			}
			if changed != tt.wantChanged || gotPercent != wantPercent || gotLimit != wantLimit {
				t.Errorf("tuneChildGC = %v, left GOGC %d and memory limit %d; want %v, %d and %d",
					changed, gotPercent, gotLimit, tt.wantChanged, wantPercent, wantLimit)
			}
		})
	}
}

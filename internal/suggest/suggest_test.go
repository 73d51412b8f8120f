package suggest

import "testing"

func TestNearest(t *testing.T) {
	names := []string{"lock/mutex/leader-kill", "lock/fenced/pause-holder", "election/rechecked/partition", "discovery/keepalive/kill"}
	tests := []struct {
		name string
		want string
		top  string
	}{
		{"prefix", "election", "election/rechecked/partition"},
		{"typo", "lock/fencd/pause-holder", "lock/fenced/pause-holder"},
		{"substring", "keepalive", "discovery/keepalive/kill"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Nearest(tt.want, names)
			if got[0] != tt.top || len(got) != len(names) {
				t.Errorf("Nearest(%q) = %v, want %q first", tt.want, got, tt.top)
			}
		})
	}
}

package checker

import (
	"testing"
	"time"
)

// The faulted floor is etcd's request timeout (5 s and two election
// timeouts) and a second: 6.2 s on a cluster of etcdsim's default 100 ms
// election timeout, 8 s on etcd's own default of 1 s.
func TestFaultedLivenessFloor(t *testing.T) {
	for _, tc := range []struct {
		name     string
		election time.Duration
		want     time.Duration
	}{
		{"etcdsim's default", 100 * time.Millisecond, 6200 * time.Millisecond},
		{"etcd's default", time.Second, 8 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := FaultedLivenessFloor(tc.election); got != tc.want {
				t.Errorf("FaultedLivenessFloor(%v) = %v, want %v", tc.election, got, tc.want)
			}
		})
	}
}

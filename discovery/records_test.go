package discovery_test

import (
	"testing"

	"github.com/etcdsim/etcdsim/discovery"
)

func TestRecordRoundTrip(t *testing.T) {
	tests := []struct {
		name, value, addr string
		ok                bool
	}{
		{"record", discovery.Record("10.0.0.7:8080"), "10.0.0.7:8080", true},
		{"manager's deletion", `{"Op":1,"Addr":"10.0.0.7:8080"}`, "", false},
		{"bare address", "10.0.0.7:8080", "", false},
		{"empty", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			addr, ok := discovery.AddrOf(tt.value)
			if addr != tt.addr || ok != tt.ok {
				t.Errorf("AddrOf(%q) = %q, %v; want %q, %v", tt.value, addr, ok, tt.addr, tt.ok)
			}
		})
	}
}

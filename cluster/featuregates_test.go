package cluster

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"

	"go.etcd.io/etcd/server/v3/features"
)

func TestFeatureGatesReachEveryMember(t *testing.T) {
	for _, tt := range []struct {
		name  string
		gates string
		want  bool
	}{
		{name: "etcd's default", gates: "", want: true},
		{name: "turned off", gates: "FastLeaseKeepAlive=false", want: false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := New(t, Config{Members: 2, FeatureGates: tt.gates})
				for _, m := range c.Members() {
					if got := m.Server().FeatureEnabled(features.FastLeaseKeepAlive); got != tt.want {
						t.Errorf("%s: FastLeaseKeepAlive enabled %v, want %v", m.Name(), got, tt.want)
					}
				}
			})
		})
	}
}

// Each bad configuration is refused before any member starts, so nothing
// here waits on time: Start is called on the real clock because the table's
// subtests cannot run inside one bubble.
func TestFeatureGatesErrorsNameTheGate(t *testing.T) {
	for _, tt := range []struct {
		name string
		cfg  Config
		want []string
	}{
		{name: "unknown gate", cfg: Config{FeatureGates: "FastLeaseKeepAliv=false"},
			want: []string{`Config.FeatureGates "FastLeaseKeepAliv=false"`, "FastLeaseKeepAlive="}},
		{name: "no bool", cfg: Config{FeatureGates: "FastLeaseKeepAlive=maybe"}, want: []string{"Name=true|false"}},
		{name: "member binaries", cfg: Config{FeatureGates: "FastLeaseKeepAlive=false", MemberBinaries: true, Clock: ClockReal},
			want: []string{"member binaries take etcd's defaults"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Start(context.Background(), tt.cfg)
			if err == nil {
				c.Close()
				t.Fatalf("Start(%+v) succeeded, want an error", tt.cfg)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

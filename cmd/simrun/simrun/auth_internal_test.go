package simrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/scenarios"
)

// -auth and an override's auth read "simple", "jwt" and either with a
// TTL; anything else is an error that says what is valid.
func TestParseAuth(t *testing.T) {
	tests := []struct {
		name, spec string
		want       *scenarios.Auth
		err        string
	}{
		{"off", "", nil, ""},
		{"simple", "simple", &scenarios.Auth{Token: cluster.TokenSimple}, ""},
		{"jwt with a TTL", "jwt:2s", &scenarios.Auth{Token: cluster.TokenJWT, TokenTTL: scenarios.Duration(2 * time.Second)}, ""},
		{"unknown kind", "oauth", nil, `token kind "oauth"; want simple or jwt`},
		{"TTL not in seconds", "jwt:1500ms", nil, `TTL "1500ms"; want`},
		{"TTL not a duration", "simple:soon", nil, `TTL "soon"; want`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseAuth(tt.spec)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("parseAuth(%q) error %v; want it to say %q", tt.spec, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("parseAuth(%q) (-want +got):\n%s", tt.spec, diff)
			}
		})
	}
}

// A campaign override turns auth on in its variant; a bad one names its
// line and what is valid.
func TestCampaignOverrideAuth(t *testing.T) {
	jobs := expandYAML(t, `scenarios: [lock/mutex/leader-kill]
seeds: [1]
overrides:
  - name: plain
  - name: jwt
    auth: jwt:2s
`)
	got := map[string]*scenarios.Auth{}
	for _, j := range jobs {
		got[j.label()] = j.scenario.Cluster.Auth
	}
	if len(got) != 2 {
		t.Fatalf("%d variants, want 2: %v", len(got), got)
	}
	for label, a := range got {
		want := strings.Contains(label, "jwt")
		if (a != nil) != want || (want && (a.Token != cluster.TokenJWT || a.TokenTTL.D() != 2*time.Second)) {
			t.Errorf("%s: auth %+v; want it on with JWTs of 2s only in the jwt variant", label, a)
		}
	}
	f := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(f, []byte("scenarios: [lock/mutex/leader-kill]\nseeds: [1]\noverrides:\n  - auth: kerberos\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := readCampaign(f)
	if err == nil || !strings.Contains(err.Error(), `line 4: auth: "kerberos": token kind "kerberos"; want simple or jwt`) {
		t.Errorf("a bad auth override: %v", err)
	}
}

package etcdauth

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestTokenOption(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "auth")
	if got, err := TokenOption(false, time.Minute, dir); err != nil || got != "simple" {
		t.Errorf("TokenOption(simple) = %q, %v; want \"simple\"", got, err)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("a simple token wrote keys into %s", dir)
	}
	got, err := TokenOption(true, 0, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"jwt,", "sign-method=ES256", "ttl=5m0s", filepath.Join(dir, "jwt.key"), filepath.Join(dir, "jwt.pub")} {
		if !strings.Contains(got, want) {
			t.Errorf("TokenOption(jwt) = %q; want it to say %q", got, want)
		}
	}
	key, err := os.ReadFile(filepath.Join(dir, "jwt.key"))
	if err != nil {
		t.Fatal(err)
	}
	// A member restarted later gets the same keys, or it could not check
	// the tokens the others signed.
	if _, err := TokenOption(true, time.Minute, dir); err != nil {
		t.Fatal(err)
	}
	again, err := os.ReadFile(filepath.Join(dir, "jwt.key"))
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(key) {
		t.Error("a second TokenOption(jwt) made new keys")
	}
}

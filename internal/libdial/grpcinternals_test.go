package libdial

import (
	"os"
	"regexp"
	"runtime/debug"
	"testing"
)

// The hook grpcinternals.go reaches into is pinned to the gRPC version
// go.mod requires: if this fails after an upgrade, read grpcinternals.go
// against the new gRPC (is AddGlobalPerTargetDialOptions still a func(any)
// that keeps a DialOptionForTarget(url.URL) grpc.DialOption, applied after
// the caller's options?) before changing grpcChecked.
func TestGRPCInternalsMatchGoMod(t *testing.T) {
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*google\.golang\.org/grpc (\S+)`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod does not require google.golang.org/grpc")
	}
	if got := string(m[1]); got != grpcChecked {
		t.Fatalf("go.mod requires gRPC %s; grpcinternals.go was checked against gRPC %s: check AddGlobalPerTargetDialOptions on %s, then change grpcChecked", got, grpcChecked, got)
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range bi.Deps {
			if dep.Path == "google.golang.org/grpc" && dep.Version != grpcChecked {
				t.Errorf("this binary links gRPC %s, not the checked %s", dep.Version, grpcChecked)
			}
		}
	}
	if !Installed() {
		t.Errorf("gRPC %s did not take the per-target dial options: AddGlobalPerTargetDialOptions is %T, want func(any)", grpcChecked, addGlobalPerTargetDialOptions)
	}
}

package cluster

import (
	"os"
	"reflect"
	"regexp"
	"runtime/debug"
	"testing"
)

// The pieces of etcd the virtual clock reaches into are pinned to the etcd
// version go.mod requires: if this fails after an upgrade, read
// etcdinternals.go against the new etcd before changing the version here.
func TestEtcdInternalsMatchGoMod(t *testing.T) {
	const pinned = "v3.7.3"
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`go\.etcd\.io/etcd/server/v3 (\S+)`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod does not require go.etcd.io/etcd/server/v3")
	}
	if got := string(m[1]); got != pinned {
		t.Fatalf("go.mod requires etcd server %s; etcdinternals.go was checked against %s: check usePeerDialer's fields and valCtxCh on %s, then change pinned", got, pinned, got)
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range bi.Deps {
			if dep.Path == "go.etcd.io/etcd/server/v3" && dep.Version != pinned {
				t.Errorf("this binary links etcd server %s, not the pinned %s", dep.Version, pinned)
			}
		}
	}
	if err := checkInternals(); err != nil {
		t.Fatalf("etcd %s lacks what the virtual clock needs: %v", pinned, err)
	}
	if valCtxCh != nil {
		t.Error("clientv3's valCtxCh is not nil: a watch in a bubble would stop its clock")
	}
}

// On an etcd whose internals differ, the error names the missing field and
// the real clock, and nothing panics.
func TestMissingInternalsAreAnErrorNamingThem(t *testing.T) {
	type other struct{ x int }
	_, err := field(reflect.ValueOf(&other{}), "etcdserver.EtcdServer", "peerRt")
	if err == nil {
		t.Fatal("field of a struct without it returned no error")
	}
	for _, want := range []string{"etcdserver.EtcdServer has no field peerRt", "-clock real", "go.mod"} {
		if !regexp.MustCompile(regexp.QuoteMeta(want)).MatchString(err.Error()) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if _, err := field(reflect.ValueOf(42), "int", "x"); err == nil {
		t.Error("field of a non-struct returned no error")
	}
}

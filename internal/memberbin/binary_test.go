package memberbin

import (
	"context"
	"strings"
	"testing"
)

func TestBinaryBuildFails(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go build")
	}
	if err := RemoveBinary(); err != nil {
		t.Fatal(err)
	}
	t.Setenv(BinaryEnv, "")
	saved := memberPackage
	memberPackage = "github.com/etcdsim/etcdsim/internal/memberbin/no-such-binary"
	t.Cleanup(func() { memberPackage = saved })
	_, err := Binary(context.Background())
	if err == nil || !strings.Contains(err.Error(), "building it failed") || !strings.Contains(err.Error(), "no-such-binary") {
		t.Errorf("Binary with a member binary that does not build = %v; want the build's failure", err)
	}
}

// A $ETCDSIM_MEMBER_BINARY that names nothing is refused, naming it.
func TestBinaryEnvMissing(t *testing.T) {
	t.Setenv(BinaryEnv, "/no/such/etcdmember")
	_, err := Binary(context.Background())
	if err == nil || !strings.Contains(err.Error(), "/no/such/etcdmember") || !strings.Contains(err.Error(), BinaryEnv) {
		t.Errorf("Binary with $%s naming nothing = %v; want an error naming the variable and the path", BinaryEnv, err)
	}
}

package scenarios

import (
	"slices"
	"testing"
)

// The packages of the goroutines a run left are named, each once with how
// many, so a library's leftovers stand out from the recipe's.
func TestLeftPackages(t *testing.T) {
	left := []string{
		"goroutine 7 [select (durable), synctest bubble 1] in go.etcd.io/etcd/client/v3.(*Client).autoSync",
		"goroutine 9 [chan receive (durable), synctest bubble 1] in github.com/zeromicro/go-zero/core/discov/internal.(*stateWatcher).watch",
		"goroutine 8 [select (durable), synctest bubble 1] in go.etcd.io/etcd/client/v3.(*lessor).recvKeepAliveLoop",
		"goroutine 10 [chan send (durable), synctest bubble 1] in main.leak",
		"a header line of no known shape",
	}
	want := []string{"go.etcd.io/etcd/client/v3 (2)", "github.com/zeromicro/go-zero/core/discov/internal (1)", "main (1)"}
	if got := leftPackages(left); !slices.Equal(got, want) {
		t.Errorf("leftPackages = %q, want %q", got, want)
	}
}

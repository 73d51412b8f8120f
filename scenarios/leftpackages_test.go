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

// The packages the stacks of the goroutines left run through, beyond
// those of their first functions, name the library that started them.
func TestThrough(t *testing.T) {
	left := []string{"goroutine 18 [select (durable), synctest bubble 1] in google.golang.org/grpc.(*ClientConn).WaitForStateChange"}
	stacks := `goroutine 18 [select (durable), synctest bubble 1]:
google.golang.org/grpc.(*ClientConn).WaitForStateChange(0xc000, {0x1, 0x2}, 0x3)
	/go/pkg/mod/google.golang.org/grpc@v1.83.2/clientconn.go:700 +0x85
github.com/zeromicro/go-zero/core/discov/internal.(*stateWatcher).watch(0xc001, {0x4, 0x5})
	/go/pkg/mod/github.com/zeromicro/go-zero@v1.10.3/core/discov/internal/statewatcher.go:40 +0x6e
created by github.com/zeromicro/go-zero/core/discov/internal.(*cluster).newClient in goroutine 12
	/go/pkg/mod/github.com/zeromicro/go-zero@v1.10.3/core/discov/internal/registry.go:280 +0x2a5
`
	want := ", whose stacks run through github.com/zeromicro/go-zero/core/discov/internal"
	if got := through(left, stacks); got != want {
		t.Errorf("through = %q, want %q", got, want)
	}
	if got := through(left, "goroutine 18 [select]:\nruntime.gopark(0x1)\n\t/x.go:1\n"); got != "" {
		t.Errorf("through of a stack in the standard library alone = %q, want none", got)
	}
}

package libdial

// The one reach into gRPC's internals, pinned to the gRPC version in
// go.mod by TestGRPCInternalsMatchGoMod: read this file against a new
// gRPC before changing the version there.

import (
	"sync/atomic"
	_ "unsafe" // for go:linkname
)

// grpcChecked is the gRPC version this file was last checked against.
const grpcChecked = "v1.83.2"

// addGlobalPerTargetDialOptions is gRPC's process-wide hook
// (google.golang.org/grpc/internal.AddGlobalPerTargetDialOptions), a
// func(opt any) that keeps opt if it has a method
// DialOptionForTarget(url.URL) grpc.DialOption, and applies it to every
// channel grpc.NewClient makes, after the caller's own options. The
// package is internal to gRPC, so it is reached with go:linkname. Should
// gRPC drop it, this line fails to link, naming it.
//
//go:linkname addGlobalPerTargetDialOptions google.golang.org/grpc/internal.AddGlobalPerTargetDialOptions
var addGlobalPerTargetDialOptions any

func init() {
	add, ok := addGlobalPerTargetDialOptions.(func(any))
	if !ok {
		return // installed stays false: Endpoints' addresses need the real clock
	}
	add(targetDialer{})
	add(targetInterceptors{stream: false})
	add(targetInterceptors{stream: true})
	installed.Store(true)
}

// installed says init installed the per-target options.
var installed atomic.Bool

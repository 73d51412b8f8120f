// Package cluster starts multi-member etcd clusters inside one process.
package cluster

import (
	_ "github.com/anishathalye/porcupine"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/stretchr/testify/require"
	_ "go.etcd.io/etcd/client/v3"
	_ "go.etcd.io/etcd/client/v3/concurrency"
	_ "go.etcd.io/etcd/server/v3/embed"
	_ "go.uber.org/goleak"
	_ "golang.org/x/sync/errgroup"
)

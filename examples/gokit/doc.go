// Package gokit plugs go-kit's sd/etcdv3 (github.com/go-kit/kit v0.13.0) —
// its Registrar and its Instancer — into etcdsim's discovery scenarios,
// as a go-kit service uses them. go-kit builds its etcd client from
// endpoints and gRPC dial options, so it runs on the virtual clock with
// what cluster.ClientConfigOf hands it. See README.md.
package gokit

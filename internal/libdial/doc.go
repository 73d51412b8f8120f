// Package libdial lets an outside library's own etcd client into a
// cluster's network: the library builds its client by itself, and every
// connection it dials must still go through the named client's links, and
// close when that client's process ends.
//
// A Life is one life of a named client's process as the libraries' clients
// see it: a context that ends, and gRPC connections that close, when the
// process crashes or its cluster closes. It gives a library either what it
// can be given (Options and GuardedDialer, for a library that takes dial
// options: cluster.ClientConfigOf) or, for a library that dials from
// addresses alone, made-up addresses (Endpoints, cluster.EndpointsOf) that
// gRPC routes through a process-wide hook (routes.go says why, and
// grpcinternals.go how it is reached).
//
//	life := libdial.NewLife(libdial.Owner{Name: "c1", Dial: netDial, Stray: record, Crashed: errCrashed})
//	eps := life.Endpoints([]string{"m0"}, []string{"http://proxy-addr"})
//	... a library dials eps; its connections reach netDial
//	life.End() // the process crashed: its connections close
package libdial

// Package gozero plugs a real framework's service discovery into etcdsim:
// go-zero's core/discov, its Publisher as a discovery.Registrar and its
// Subscriber as a discovery.Resolver, each used the way a zrpc server and
// client use them. go-zero dials etcd itself from a list of endpoints, so
// its scenarios run on the real clock, where a named client's endpoints
// carry that client's traffic alone and every fault aimed at the client
// reaches go-zero (see gozero_test.go and README.md).
package gozero

// Package vitess plugs vitess's etcd2topo (vitess.io/vitess v0.24.4) into
// etcdsim's lock and election scenarios. See README.md.
package vitess

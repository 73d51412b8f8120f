// Package clustertest holds the helpers that tests written on etcdsim's
// cluster reach for again and again: a bounded context, named and observer
// clients, and waits that watch or poll until a condition holds. Each one
// fails the test with a message that names what it was waiting for, and
// cleans up after itself when the test ends.
//
// The waits are generous on purpose (see Patience): the machines tests run
// on are shared and noisy, and speed belongs in benchmarks, not in tests.
package clustertest

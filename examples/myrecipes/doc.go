// Package myrecipes is what a user of etcdsim writes: a lock, an election,
// a registrar and a resolver of their own, on etcd's client/v3 and
// etcdsim's public API only, each proved under faults by the scenarios
// etcdsim builds for a user's recipe (see myrecipes_test.go and
// cmd/mysim).
package myrecipes

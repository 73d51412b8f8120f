// Package register holds the register family's recipes: the client-side
// KVs a register client reads and writes its keys through, over its own
// etcd client, behind clientv3.KV so that a user's own KV — a cache, a
// proxy, a library's wrapper — is judged the same way.
//
//   - "kv" (also ""): the client's own KV API, straight to the cluster.
//
//   - "leasing": client/v3/leasing's KV used as its API reads. It caches
//     each key it reads under a lease of its session and serves later
//     reads from the cache until another client's write revokes the lease.
//     On etcd v3.7.3 its Put and Delete of a key the client holds no lease
//     on run twice: not linearizable, even on a healthy cluster.
//
//   - "leasing-txn-writes": the same KV with every put and delete sent as
//     a one-operation transaction, which the leasing KV runs once; its
//     cached reads are served as the leasing KV serves them, past the
//     lease's expiry (etcd #19091).
//
//   - "leasing-guarded": leasing-txn-writes whose cached reads are served
//     only while a lease.Guard proves the lease alive: the correct use.
//
//   - "ordering": client/v3/ordering's KV, which refuses a read answered
//     at a revision below one the client has seen and asks again.
//
//     r, err := register.Lookup("leasing-guarded")
//     kv, err := r.New(ctx, cli, time.Second)
//     defer register.Close(kv)
//     resp, err := kv.Get(ctx, "k")
package register

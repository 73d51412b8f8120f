package discovery

import clientv3 "go.etcd.io/etcd/client/v3"

// BROKEN (deliberately): a resolver that lists
// with serializable reads and watches without requiring a leader. A
// serializable read is answered from the member's own copy of the data,
// without asking the leader; a member cut off from the others still
// answers, with whatever it had when the partition began, and a watch on
// it simply goes quiet. A resolver whose client is pinned to such a
// member — by a load balancer, a sidecar, a DNS name — keeps serving, and
// a resolver started there lists, instances that deregistered long ago
// and never learns of new ones, and says nothing is wrong. etcd's own
// endpoints manager lists this way (client/v3/naming/endpoints:
// NewWatchChannel and List use clientv3.WithSerializable). The loop is
// NewRelisting's with two settings changed.
//
// newSerializable returns a Resolver like NewRelisting whose listings are
// serializable and whose watch does not require a leader.
func newSerializable(cli *clientv3.Client, service string, opts Options) (Resolver, error) {
	return newView(cli, service, relist{serializable: true, requireLeader: false, decode: opts.decoder()}.run)
}

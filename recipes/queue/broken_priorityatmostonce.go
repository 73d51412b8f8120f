package queue

import (
	clientv3 "go.etcd.io/etcd/client/v3"
)

// BROKEN (deliberately): etcd's recipes.PriorityQueue, unmodified. Its
// order is right — the lowest priority number first, then the order of
// arrival — but its Dequeue claims by deleting, as recipes.Queue's does,
// and loses the item the same way when the delete's answer is lost.
// Shown by the scenario queue/priority-at-most-once/lost-claim.
func newPriorityAtMostOnce(cli *clientv3.Client, name string) (Queue, error) {
	if err := check(cli, name); err != nil {
		return nil, err
	}
	return &etcdQueue{cli: cli, key: DefaultPrefix + name, priority: true}, nil
}

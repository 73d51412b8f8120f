// Package queue holds queue recipes on etcd, built on the unmodified
// client/v3/experimental/recipes.Queue and PriorityQueue, behind one
// small interface so that a user's own queue can be judged the same way.
//
// etcd's Queue puts each item under a key named by the time it was
// enqueued, its PriorityQueue under a key named by the item's priority and
// a sequence number; a consumer claims the first by deleting it with a
// transaction that compares its mod revision. A Dequeue whose delete
// committed but whose answer was lost has taken the item from everyone
// and given it to no one: delivery is at most once (see
// TestLostDequeueAnswer, and pitfall 19 of docs/pitfalls.md). The correct
// recipes here keep etcd's keys but claim an item by moving it to a
// record of the consumer's, in one transaction that a consumer can try
// again after a lost answer and learn what it got.
//
//	r, err := queue.Lookup("claimed")
//	q, err := r.New(cli, "jobs")
//	err = q.Enqueue(ctx, "job-1")
//	item, err := q.Dequeue(ctx) // blocks until an item comes or ctx ends
package queue

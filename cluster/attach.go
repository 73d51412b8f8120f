package cluster

import (
	clientv3 "go.etcd.io/etcd/client/v3"
)

// What a package built on a cluster starts for a run — the programs
// package program starts before the run, say — travels with the cluster
// as a value: the package attaches it under a key of its own type, the way
// a context carries values, and finds it again from any named client's
// etcd client (OwnerOf). Nothing process-wide maps a client to it, and it
// is gone with the cluster.

// Attach keeps v in c under key, unless a value is kept there already, and
// returns the value kept: v, or the earlier one. key should be of a type
// of the caller's own, as for context.WithValue.
func (c *Cluster) Attach(key, v any) any {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.attached[key]; ok {
		return old
	}
	if c.attached == nil {
		c.attached = make(map[any]any)
	}
	c.attached[key] = v
	return v
}

// Attached returns the value kept in c under key, or nil.
func (c *Cluster) Attached(key any) any {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.attached[key]
}

// Detach removes the value kept in c under key, if it is v: a value that
// was replaced meanwhile stays.
func (c *Cluster) Detach(key, v any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.attached[key] == v {
		delete(c.attached, key)
	}
}

// OwnerOf returns the cluster and the client name cli was made for by
// Client or ClientConfigOf, or ok false for a client no cluster made.
func OwnerOf(cli *clientv3.Client) (c *Cluster, name string, ok bool) {
	o, ok := ownerOf(cli)
	if !ok {
		return nil, "", false
	}
	return o.c, o.name, true
}

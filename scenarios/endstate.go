package scenarios

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/cluster"
)

// finalRead bounds the read of what etcd holds at a run's end: the faults
// are healed and the cluster settled by then, so it takes a few round
// trips.
const finalRead = 10 * time.Second

// finalLeases caps the leases whose keys the end state lists.
const finalLeases = 1000

// finalKeys caps the keys the end state lists.
const finalKeys = 10000

// readFinal reads what etcd holds at a run's end — every key but those
// under the workload's own prefixes, each with its lease, and every lease
// with its TTL and keys — as the harness's root user, from every running
// member. at is the time on the run clock. What cannot be read is said in
// Err; the state keeps what was.
func readFinal(ctx context.Context, c *cluster.Cluster, workload []string, at time.Duration) *checker.FinalState {
	f := &checker.FinalState{At: at}
	var eps []string
	for _, m := range c.Members() {
		if m.Running() {
			eps = append(eps, m.Endpoint())
		}
	}
	if len(eps) == 0 {
		f.Err = "no member was running"
		return f
	}
	ctx, cancel := context.WithTimeout(ctx, finalRead)
	defer cancel()
	user, password := c.RootCredentials()
	cli, err := clientv3.New(clientv3.Config{Endpoints: eps, Logger: zap.NewNop(), DialTimeout: finalRead,
		DialOptions: c.DialOptions(), Username: user, Password: password, Context: ctx})
	if err != nil {
		f.Err = fmt.Sprintf("a client to read the end state: %v", err)
		return f
	}
	defer cli.Close()
	resp, err := cli.Get(ctx, "\x00", clientv3.WithFromKey(), clientv3.WithKeysOnly(), clientv3.WithLimit(finalKeys+1),
		clientv3.WithSort(clientv3.SortByKey, clientv3.SortAscend))
	if err != nil {
		f.Err = fmt.Sprintf("listing the keys: %v", err)
		return f
	}
	for i, kv := range resp.Kvs {
		if i == finalKeys {
			f.Err = fmt.Sprintf("more than %d keys, of which the first %d are listed", finalKeys, finalKeys)
			return f
		}
		k := string(kv.Key)
		if slices.ContainsFunc(workload, func(p string) bool { return strings.HasPrefix(k, p) }) || strings.HasPrefix(k, "etcdsim/faults/") || k == "etcdsim/health" {
			continue // the workload's and the harness's own
		}
		f.Keys = append(f.Keys, checker.FinalKey{Key: k, Lease: kv.Lease, CreateRevision: kv.CreateRevision, ModRevision: kv.ModRevision})
	}
	ls, err := cli.Leases(ctx)
	if err != nil {
		f.Err = fmt.Sprintf("listing the leases: %v", err)
		return f
	}
	for i, l := range ls.Leases {
		if i == finalLeases {
			f.Err = fmt.Sprintf("%d leases, of which the first %d are listed", len(ls.Leases), finalLeases)
			break
		}
		ttl, err := cli.TimeToLive(ctx, l.ID, clientv3.WithAttachedKeys())
		if err != nil {
			f.Err = fmt.Sprintf("the time to live of lease %x: %v", int64(l.ID), err)
			break
		}
		if ttl.TTL < 0 { // expired since it was listed
			continue
		}
		fl := checker.FinalLease{ID: int64(l.ID), TTL: time.Duration(ttl.GrantedTTL) * time.Second, Remaining: time.Duration(ttl.TTL) * time.Second}
		for _, k := range ttl.Keys {
			fl.Keys = append(fl.Keys, string(k))
		}
		slices.Sort(fl.Keys)
		f.Leases = append(f.Leases, fl)
	}
	slices.SortFunc(f.Leases, func(a, b checker.FinalLease) int { return int(min(max(a.ID-b.ID, -1), 1)) })
	attachLeases(f)
	return f
}

// attachLeases sets each key's lease from the leases' attached keys. etcd
// v3.7 answers a keys-only range from its in-memory index
// (mvcc.RangeOptions.FastKeysOnly), which does not hold a key's lease: every
// key of the listing says lease 0, on a lease or not.
func attachLeases(f *checker.FinalState) {
	on := map[string]int64{}
	for _, l := range f.Leases {
		for _, k := range l.Keys {
			on[k] = l.ID
		}
	}
	for i := range f.Keys {
		if id, ok := on[f.Keys[i].Key]; ok && f.Keys[i].Lease == 0 {
			f.Keys[i].Lease = id
		}
	}
}

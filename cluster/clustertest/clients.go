package clustertest

import (
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// Client returns the cluster's client called name. With no members it is
// the client linked to every member, created on first use; with members it
// is a new client linked to those members only.
func Client(t testing.TB, c *cluster.Cluster, name string, members ...string) *clientv3.Client {
	t.Helper()
	var (
		cli *clientv3.Client
		err error
	)
	if len(members) == 0 {
		cli, err = c.Client(name)
	} else {
		cli, err = c.NewClient(name, cluster.ClientConfig{Members: members})
	}
	if err != nil {
		t.Fatal(err)
	}
	return cli
}

// Observer returns a client that reaches the given members through their
// front endpoints, which no fault touches: the harness's own eyes, for
// checks that must not be hurt by the faults under test. Pass c.Members()...
// for every member. It is closed when the test ends.
func Observer(t testing.TB, members ...*cluster.Member) *clientv3.Client {
	t.Helper()
	if len(members) == 0 {
		t.Fatal("clustertest.Observer: no members given; pass c.Members()... for all of them")
	}
	eps := make([]string, 0, len(members))
	for _, m := range members {
		eps = append(eps, m.Endpoint())
	}
	user, password := members[0].Cluster().RootCredentials() // the harness's, when auth is on
	cli, err := clientv3.New(clientv3.Config{Endpoints: eps, Logger: zap.NewNop(), DialTimeout: 5 * time.Second,
		DialOptions: members[0].DialOptions(), Username: user, Password: password})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

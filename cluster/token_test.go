package cluster

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"

	clientv3 "go.etcd.io/etcd/client/v3"

	"go.etcd.io/etcd/client/pkg/v3/types"
	"go.etcd.io/etcd/server/v3/etcdserver/api/membership"
)

func idBitsOf(t *testing.T, name, peer, token string) uint64 {
	t.Helper()
	urls, err := types.NewURLs([]string{peer})
	if err != nil {
		t.Fatal(err)
	}
	return uint64(membership.NewMember(name, urls, token, nil).ID) & idBits
}

// A token under which two members would make the same lease and request
// IDs is passed over for one that keeps them apart.
func TestPickTokenKeepsIDsApart(t *testing.T) {
	peers := map[string]string{"m0": "http://10.0.0.1:2380", "m1": "http://10.0.0.2:2380", "m2": "http://10.0.0.3:2380"}
	// Find a base under which m0 and m1 collide: about one in 32 768.
	base := ""
	for i := 0; base == "" && i < 1_000_000; i++ {
		b := fmt.Sprintf("etcdsim-test%d", i)
		if idBitsOf(t, "m0", peers["m0"], b) == idBitsOf(t, "m1", peers["m1"], b) {
			base = b
		}
	}
	if base == "" {
		t.Fatal("no colliding base found")
	}
	token, err := pickToken(base, peers)
	if err != nil {
		t.Fatal(err)
	}
	if token == base {
		t.Fatalf("pickToken kept %q, under which m0 and m1 share their ID bits", base)
	}
	seen := map[uint64]string{}
	for name, peer := range peers {
		bits := idBitsOf(t, name, peer, token)
		if other, ok := seen[bits]; ok {
			t.Fatalf("under %q, %s and %s share ID bits %#x", token, name, other, bits)
		}
		seen[bits] = name
	}
	if again, err := pickToken(token, peers); err != nil || again != token {
		t.Errorf("pickToken(%q) = %q, %v; want the token kept, its IDs being apart", token, again, err)
	}
}

// What pickToken prevents, shown on a real cluster: with a token under
// which m0 and m1 share their ID bits, each grants leases from the same
// counts on the virtual clock, and a grant on one under an ID the other
// already gave is refused. Under the token New picks, the same grants all
// succeed.
func TestSharedIDBitsGrantOneLeaseTwice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		if n, err := grantOnM0AndM1(t, New(t, Config{})); err != nil {
			t.Fatalf("under the token New picked: %v after %d grants", err, n)
		}
	})
	defer func(p func(string, map[string]string) (string, error)) { tokenPicker = p }(tokenPicker)
	tokenPicker = func(base string, peers map[string]string) (string, error) {
		for i := 0; i < 1_000_000; i++ {
			b := fmt.Sprintf("%s-same%d", base, i)
			if idBitsOf(t, "m0", peers["m0"], b) == idBitsOf(t, "m1", peers["m1"], b) {
				return b, nil
			}
		}
		return "", fmt.Errorf("no token found")
	}
	synctest.Test(t, func(t *testing.T) {
		n, err := grantOnM0AndM1(t, New(t, Config{}))
		if err == nil || !strings.Contains(err.Error(), "lease already exists") {
			t.Fatalf("m0 and m1 sharing ID bits: %d grants, then %v; want one refused as a lease that exists", n, err)
		}
		t.Logf("refused after %d grants, as expected: %v", n, err)
	})
}

// grantOnM0AndM1 grants leases through m0 and m1 in turn, 40 in all, and
// returns how many it granted and the first error.
func grantOnM0AndM1(t *testing.T, c *Cluster) (int, error) {
	ctx := t.Context()
	on0, on1 := client(t, c, "on0", "m0"), client(t, c, "on1", "m1")
	given := map[clientv3.LeaseID]bool{}
	for range 20 {
		// A grant takes two IDs of its member's count, a linearizable read
		// one: m0 counts three a round and m1 two, so m0 comes to IDs m1
		// gave.
		if _, err := on0.Get(ctx, "k"); err != nil {
			return len(given), err
		}
		for _, cli := range []*clientv3.Client{on0, on1} {
			g, err := cli.Grant(ctx, 5)
			if err != nil {
				return len(given), err
			}
			if given[g.ID] {
				return len(given), fmt.Errorf("lease %x granted twice", g.ID)
			}
			given[g.ID] = true
		}
	}
	return len(given), nil
}

package scenarios_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/internal/bubble"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
	epb "go.etcd.io/etcd/server/v3/etcdserver/api/v3election/v3electionpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// etcd #17502 (discussed there; etcd's own test of it,
// TestElectionWithAuthEnabled, runs the client-side Election): with auth
// on, the election service waits for a candidate's turn with a watch of
// the member's in-process client, whose watch streams are not the
// caller's, so a candidate of one user that must wait is refused as if it
// were another user. Two users, each allowed only its own prefix, each
// with a leader and a candidate queued behind it: the first user to wait
// owns the service's watch stream, and the second user's waiting
// candidate is answered "permission denied" at once. The same two users
// with etcd's client-side Election, each on its own client, wait their
// turn. Confirmed on v3.7.3; this test fails when etcd changes either.
func TestElectionServiceWaitsAsAnotherUser(t *testing.T) {
	auth := &cluster.AuthConfig{
		Users: []cluster.User{{Name: "u1", Password: "p1", Roles: []string{"r1"}}, {Name: "u2", Password: "p2", Roles: []string{"r2"}}},
		Roles: []cluster.Role{{Name: "r1", Prefix: "/foo1/"}, {Name: "r2", Prefix: "/bar1/"}},
	}
	bothCampaigns(t, auth, func(t *testing.T, c *cluster.Cluster, campaign campaignFunc, service bool) {
		ctx := context.Background()
		clients := usersClients(t, c, "a1", "u1", "a2", "u1", "b1", "u2", "b2", "u2")
		// The leaders win at once.
		if err := campaign(ctx, t, clients["a1"], "/foo1/a", "a1"); err != nil {
			t.Fatalf("a1 (u1) campaigns on a free election: %v", err)
		}
		if err := campaign(ctx, t, clients["b1"], "/bar1/b", "b1"); err != nil {
			t.Fatalf("b1 (u2) campaigns on a free election: %v", err)
		}
		// u1's candidate queues first; then u2's.
		a2 := make(chan error, 1)
		actx, cancelA := context.WithTimeout(ctx, 3*time.Second)
		defer cancelA()
		go func() { a2 <- campaign(actx, t, clients["a2"], "/foo1/a", "a2") }()
		time.Sleep(500 * time.Millisecond)
		bctx, cancelB := context.WithTimeout(ctx, 2*time.Second)
		defer cancelB()
		err := campaign(bctx, t, clients["b2"], "/bar1/b", "b2")
		denied := errors.Is(err, rpctypes.ErrPermissionDenied) || isPermissionDenied(err)
		if denied != service {
			t.Errorf("b2 (u2), queued behind b1 on its own prefix: %v; want permission denied: %v", err, service)
		}
		if !denied {
			wantWaited(t, "b2 (u2)", err)
		}
		wantWaited(t, "a2 (u1)", <-a2)
	})
}

// bothCampaigns runs body twice, each time in a bubble of its own with a
// one-member cluster with auth on: with the server's election service
// (service true) and with etcd's client-side Election.
func bothCampaigns(t *testing.T, auth *cluster.AuthConfig, body func(t *testing.T, c *cluster.Cluster, campaign campaignFunc, service bool)) {
	for _, tc := range []struct {
		name     string
		campaign campaignFunc
		service  bool
	}{
		{"v3election service", serviceCampaign, true},
		{"client-side Election", libraryCampaign, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bubble.Test(t, bubble.Options{Name: t.Name()}, func(t *testing.T) {
				c := cluster.New(t, cluster.Config{Members: 1, Latency: time.Millisecond, Auth: auth})
				body(t, c, tc.campaign, tc.service)
			})
		})
	}
}

// wantWaited fails the test unless err is the end of a wait for a turn
// that never came: the campaign's deadline.
func wantWaited(t *testing.T, who string, err error) {
	t.Helper()
	if !errors.Is(err, context.DeadlineExceeded) && status.Code(err) != codes.DeadlineExceeded {
		t.Errorf("%s should wait its turn until its deadline, got %v", who, err)
	}
}

// A campaignFunc has cli campaign on election, for as long as ctx lasts
// (the leaders never resign), and returns its error.
type campaignFunc func(ctx context.Context, t *testing.T, cli *clientv3.Client, election, value string) error

// serviceCampaign campaigns through the server's election service, on a
// lease of 10s.
func serviceCampaign(ctx context.Context, t *testing.T, cli *clientv3.Client, election, value string) error {
	l, err := cli.Grant(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	_, err = epb.NewElectionClient(cli.ActiveConnection()).Campaign(ctx,
		&epb.CampaignRequest{Name: []byte(election), Lease: int64(l.ID), Value: []byte(value)})
	return err
}

// libraryCampaign campaigns with etcd's client-side Election, on a
// session of 10s.
func libraryCampaign(ctx context.Context, t *testing.T, cli *clientv3.Client, election, value string) error {
	s, err := concurrency.NewSession(cli, concurrency.WithTTL(10))
	if err != nil {
		t.Fatal(err)
	}
	s.Orphan()
	return concurrency.NewElection(s, election).Campaign(ctx, value)
}

// usersClients makes the named clients of c, each speaking as its user:
// pairs of client and user name.
func usersClients(t *testing.T, c *cluster.Cluster, pairs ...string) map[string]*clientv3.Client {
	t.Helper()
	out := map[string]*clientv3.Client{}
	for i := 0; i+1 < len(pairs); i += 2 {
		cli, err := c.NewClient(pairs[i], cluster.ClientConfig{User: pairs[i+1]})
		if err != nil {
			t.Fatal(err)
		}
		out[pairs[i]] = cli
	}
	return out
}

// isPermissionDenied reports an error that carries etcd's permission
// denied, as the election service wraps it: its message, in any code.
func isPermissionDenied(err error) bool {
	s, ok := status.FromError(err)
	return ok && (s.Code() == codes.PermissionDenied || strings.Contains(s.Message(), rpctypes.ErrPermissionDenied.Error()))
}

// The election service's waits share one watch stream of the member's
// in-process client, opened with the token of the first caller that had
// to wait. Once that caller's tokens expire, the next candidate that must
// wait — of another user, with a token of its own that is valid, on a
// prefix it may read — is refused "invalid auth token" at once, for as
// long as the stream lives. etcd #19296 reports the same shared stream in
// the grpc-proxy (later watchers hang once the first one's token
// expires); etcdsim runs no grpc-proxy, but the election service has the
// stream. etcd's client-side Election, each candidate on its own client,
// waits its turn. Confirmed on v3.7.3; this test fails when etcd changes
// either.
func TestElectionServiceWaitsWithAnExpiredToken(t *testing.T) {
	auth := &cluster.AuthConfig{
		Users: []cluster.User{{Name: "u1", Password: "p1", Roles: []string{"r"}}, {Name: "u2", Password: "p2", Roles: []string{"r"}}},
		Roles: []cluster.Role{{Name: "r", Prefix: "/e/"}},
	}
	bothCampaigns(t, auth, func(t *testing.T, c *cluster.Cluster, campaign campaignFunc, service bool) {
		ctx := context.Background()
		clients := usersClients(t, c, "a1", "u1", "a2", "u1", "b2", "u2")
		if err := campaign(ctx, t, clients["a1"], "/e/x", "a1"); err != nil {
			t.Fatalf("a1 (u1) campaigns on a free election: %v", err)
		}
		// u1's candidate queues first, then u1's tokens expire.
		a2 := make(chan error, 1)
		actx, cancelA := context.WithTimeout(ctx, 4*time.Second)
		defer cancelA()
		go func() { a2 <- campaign(actx, t, clients["a2"], "/e/x", "a2") }()
		time.Sleep(500 * time.Millisecond)
		if _, _, err := c.ExpireTokens(ctx, "u1"); err != nil {
			t.Fatal(err)
		}
		bctx, cancelB := context.WithTimeout(ctx, 2*time.Second)
		defer cancelB()
		err := campaign(bctx, t, clients["b2"], "/e/x", "b2")
		refused := err != nil && strings.Contains(err.Error(), rpctypes.ErrInvalidAuthToken.Error())
		if refused != service {
			t.Errorf("b2 (u2), queued behind a1 after u1's tokens expired: %v; want refused with an invalid token: %v", err, service)
		}
		if !refused {
			wantWaited(t, "b2 (u2)", err)
		}
		wantWaited(t, "a2 (u1)", <-a2)
	})
}

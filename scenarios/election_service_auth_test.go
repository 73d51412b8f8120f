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
	// A campaignFunc has cli campaign on election, for as long as ctx
	// lasts (the leaders never resign), and returns its error.
	type campaignFunc func(ctx context.Context, t *testing.T, cli *clientv3.Client, election, value string) error
	service := func(ctx context.Context, t *testing.T, cli *clientv3.Client, election, value string) error {
		l, err := cli.Grant(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		_, err = epb.NewElectionClient(cli.ActiveConnection()).Campaign(ctx,
			&epb.CampaignRequest{Name: []byte(election), Lease: int64(l.ID), Value: []byte(value)})
		return err
	}
	library := func(ctx context.Context, t *testing.T, cli *clientv3.Client, election, value string) error {
		s, err := concurrency.NewSession(cli, concurrency.WithTTL(10))
		if err != nil {
			t.Fatal(err)
		}
		s.Orphan()
		return concurrency.NewElection(s, election).Campaign(ctx, value)
	}
	for _, tc := range []struct {
		name     string
		campaign campaignFunc
		denied   bool // u2's queued candidate is refused
	}{
		{"v3election service", service, true},
		{"client-side Election", library, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bubble.Test(t, bubble.Options{Name: t.Name()}, func(t *testing.T) {
				ctx := context.Background()
				c := cluster.New(t, cluster.Config{Members: 1, Latency: time.Millisecond, Auth: auth})
				clients := map[string]*clientv3.Client{}
				for _, x := range []struct{ name, user string }{{"a1", "u1"}, {"a2", "u1"}, {"b1", "u2"}, {"b2", "u2"}} {
					cli, err := c.NewClient(x.name, cluster.ClientConfig{User: x.user})
					if err != nil {
						t.Fatal(err)
					}
					clients[x.name] = cli
				}
				// The leaders win at once.
				if err := tc.campaign(ctx, t, clients["a1"], "/foo1/a", "a1"); err != nil {
					t.Fatalf("a1 (u1) campaigns on a free election: %v", err)
				}
				if err := tc.campaign(ctx, t, clients["b1"], "/bar1/b", "b1"); err != nil {
					t.Fatalf("b1 (u2) campaigns on a free election: %v", err)
				}
				// u1's candidate queues first; then u2's.
				a2 := make(chan error, 1)
				actx, cancelA := context.WithTimeout(ctx, 3*time.Second)
				defer cancelA()
				go func() { a2 <- tc.campaign(actx, t, clients["a2"], "/foo1/a", "a2") }()
				time.Sleep(500 * time.Millisecond)
				bctx, cancelB := context.WithTimeout(ctx, 2*time.Second)
				defer cancelB()
				err := tc.campaign(bctx, t, clients["b2"], "/bar1/b", "b2")
				denied := errors.Is(err, rpctypes.ErrPermissionDenied) || isPermissionDenied(err)
				if denied != tc.denied {
					t.Errorf("b2 (u2), queued behind b1 on its own prefix: %v; want permission denied: %v", err, tc.denied)
				}
				if !denied && !errors.Is(err, context.DeadlineExceeded) && status.Code(err) != codes.DeadlineExceeded {
					t.Errorf("b2 (u2) should wait its turn until its deadline, got %v", err)
				}
				if err := <-a2; !errors.Is(err, context.DeadlineExceeded) && status.Code(err) != codes.DeadlineExceeded {
					t.Errorf("a2 (u1) should wait its turn until its deadline, got %v", err)
				}
			})
		})
	}
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
	service := func(ctx context.Context, t *testing.T, cli *clientv3.Client, value string) error {
		l, err := cli.Grant(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		_, err = epb.NewElectionClient(cli.ActiveConnection()).Campaign(ctx,
			&epb.CampaignRequest{Name: []byte("/e/x"), Lease: int64(l.ID), Value: []byte(value)})
		return err
	}
	library := func(ctx context.Context, t *testing.T, cli *clientv3.Client, value string) error {
		s, err := concurrency.NewSession(cli, concurrency.WithTTL(10))
		if err != nil {
			t.Fatal(err)
		}
		s.Orphan()
		return concurrency.NewElection(s, "/e/x").Campaign(ctx, value)
	}
	for _, tc := range []struct {
		name     string
		campaign func(ctx context.Context, t *testing.T, cli *clientv3.Client, value string) error
		refused  bool // u2's queued candidate is refused
	}{
		{"v3election service", service, true},
		{"client-side Election", library, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bubble.Test(t, bubble.Options{Name: t.Name()}, func(t *testing.T) {
				ctx := context.Background()
				c := cluster.New(t, cluster.Config{Members: 1, Latency: time.Millisecond, Auth: auth})
				clients := map[string]*clientv3.Client{}
				for _, x := range []struct{ name, user string }{{"a1", "u1"}, {"a2", "u1"}, {"b2", "u2"}} {
					cli, err := c.NewClient(x.name, cluster.ClientConfig{User: x.user})
					if err != nil {
						t.Fatal(err)
					}
					clients[x.name] = cli
				}
				if err := tc.campaign(ctx, t, clients["a1"], "a1"); err != nil {
					t.Fatalf("a1 (u1) campaigns on a free election: %v", err)
				}
				// u1's candidate queues first, then u1's tokens expire.
				a2 := make(chan error, 1)
				actx, cancelA := context.WithTimeout(ctx, 4*time.Second)
				defer cancelA()
				go func() { a2 <- tc.campaign(actx, t, clients["a2"], "a2") }()
				time.Sleep(500 * time.Millisecond)
				if _, _, err := c.ExpireTokens(ctx, "u1"); err != nil {
					t.Fatal(err)
				}
				bctx, cancelB := context.WithTimeout(ctx, 2*time.Second)
				defer cancelB()
				err := tc.campaign(bctx, t, clients["b2"], "b2")
				refused := err != nil && strings.Contains(err.Error(), rpctypes.ErrInvalidAuthToken.Error())
				if refused != tc.refused {
					t.Errorf("b2 (u2), queued behind a1 after u1's tokens expired: %v; want refused with an invalid token: %v", err, tc.refused)
				}
				if !refused && !errors.Is(err, context.DeadlineExceeded) && status.Code(err) != codes.DeadlineExceeded {
					t.Errorf("b2 (u2) should wait its turn until its deadline, got %v", err)
				}
				if err := <-a2; !errors.Is(err, context.DeadlineExceeded) && status.Code(err) != codes.DeadlineExceeded {
					t.Errorf("a2 (u1) should wait its turn until its deadline, got %v", err)
				}
			})
		})
	}
}

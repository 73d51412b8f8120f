package faults

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ExpireToken ends, now, the auth tokens of the user each client t
// resolves to speaks as, as their TTL would (cluster.Cluster.ExpireTokens):
// the user's simple tokens are dropped and the auth revision moves on, so
// every token issued before is refused as stale. clientv3 authenticates
// again when a request is refused; what a recipe holds open across it —
// a watch, a lease keepalive — is what this fault tests. Every client of
// the same user loses its token, not only the one aimed at; the cluster
// must have auth on (cluster.Config.Auth).
func ExpireToken(t Target) Fault {
	return Fault{
		action:  "expire-token",
		targets: []Target{t},
		kind:    clientsOnly,
		instant: true,
		apply: func(ctx context.Context, x *shot) (healFunc, string, error) {
			if user, _ := x.env.c.RootCredentials(); user == "" {
				return noHeal, "", errors.New("auth is off in this cluster (cluster.Config.Auth is nil); expire-token needs tokens to expire")
			}
			var users, done []string
			var errs []error
			for _, cl := range x.targets[0] {
				u, err := x.env.c.ClientUser(cl)
				if err != nil {
					errs = append(errs, err)
					continue
				}
				if !slices.Contains(users, u) {
					users = append(users, u)
				}
			}
			for _, u := range users {
				before, after, err := x.env.c.ExpireTokens(ctx, u)
				if err != nil {
					errs = append(errs, err)
					continue
				}
				done = append(done, fmt.Sprintf("user %s (auth revision %d→%d)", u, before, after))
			}
			detail := ""
			if len(done) > 0 {
				detail = "expired the tokens of " + strings.Join(done, ", ")
			}
			return noHeal, detail, errors.Join(errs...)
		},
	}
}

package faults

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ExpireToken ends, now, the auth tokens of the user each client t
// resolves to speaks as — or of the user t names (User("root")) — as
// their TTL would (cluster.Cluster.ExpireTokens):
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
			users, errs := tokenUsers(x.env, t, x.targets[0])
			var done []string
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

// tokenUsers returns the users whose tokens expire-token ends: the user
// target names, or the users the clients resolved speak as, each once.
func tokenUsers(e *Env, t Target, names []string) ([]string, []error) {
	if t.kind == userTarget {
		return names, nil
	}
	var users []string
	var errs []error
	for _, cl := range names {
		u, err := e.c.ClientUser(cl)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !slices.Contains(users, u) {
			users = append(users, u)
		}
	}
	return users, errs
}

package simrun

import (
	"fmt"
	"strings"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/scenarios"
)

// authSpecForm is how -auth and a campaign override's auth are written.
const authSpecForm = "simple or jwt, optionally with the tokens' TTL in whole seconds: jwt:2s"

// parseAuth reads an auth setting, "simple", "jwt" or either with a TTL
// ("jwt:2s"), into the scenario's cluster.auth that turns auth on with a
// user per client limited to the recipe's keys (scenarios.Auth's
// defaults). "" is nil: each scenario's own.
func parseAuth(spec string) (*scenarios.Auth, error) {
	if spec == "" {
		return nil, nil
	}
	kind, ttl, hasTTL := strings.Cut(spec, ":")
	a := &scenarios.Auth{Token: cluster.TokenKind(kind)}
	switch a.Token {
	case cluster.TokenSimple, cluster.TokenJWT:
	default:
		return nil, fmt.Errorf("%q: token kind %q; want %s", spec, kind, authSpecForm)
	}
	if hasTTL {
		d, err := time.ParseDuration(ttl)
		if err != nil || d <= 0 || d%time.Second != 0 {
			return nil, fmt.Errorf("%q: TTL %q; want %s", spec, ttl, authSpecForm)
		}
		a.TokenTTL = scenarios.Duration(d)
	}
	return a, nil
}

// applyAuth turns auth on, as a says, in every job whose scenario has it
// off; nil leaves each scenario's own.
func applyAuth(jobs []job, a *scenarios.Auth) {
	if a == nil {
		return
	}
	for i := range jobs {
		if c := &jobs[i].scenario.Cluster; c.Auth == nil {
			cp := *a
			c.Auth = &cp
		}
	}
}

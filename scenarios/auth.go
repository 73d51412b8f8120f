package scenarios

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/faults"
)

// Auth turns etcd's authentication on for a scenario's cluster
// (Cluster.Auth, cluster.Config.Auth): its users, the roles they hold, the
// tokens etcd hands out, and the user each client of the workload speaks
// as. The harness speaks as root; every client of the recipe speaks as a
// user of its own that holds only the keys the recipe keeps (KeyPrefixes).
//
// The zero Auth — "auth": {} in JSON — is filled in by the scenario's
// defaults: one role per prefix of the recipe's keys ("recipe-0", …), and
// one user per client, named after it, that holds them. A scenario that
// lists its own users must say in Clients which user each client is.
type Auth struct {
	// Token is the kind of token etcd hands out: "simple" ("" means it)
	// or "jwt".
	Token cluster.TokenKind `json:"token,omitempty"`
	// TokenTTL is how long a token lives, in whole seconds. 0 means
	// etcd's default, 5 minutes.
	TokenTTL Duration `json:"token_ttl,omitempty"`
	// Roles are the roles the users hold, each granting one key prefix.
	Roles []cluster.Role `json:"roles,omitempty"`
	// Users are the users besides root, each with its password and
	// roles.
	Users []cluster.User `json:"users,omitempty"`
	// Clients names the user each client (c1, …, o1, …) speaks as.
	Clients map[string]string `json:"clients,omitempty"`
}

// KeyPrefixes are the key prefixes the clients of workload w read and
// write, in the order its family lists them; nil for a family that cannot
// yet run with auth on. A role granting a prefix of each is what a user of
// the recipe needs.
func KeyPrefixes(w Workload) []string {
	f := familyOf(w.Family)
	if f == nil || f.keys == nil {
		return nil
	}
	if w.Key == "" {
		w.Key = f.key
	}
	return f.keys(w)
}

// clientKeyPrefixes are the key prefixes client reads, and writes unless
// it is an observer, in workload w: KeyPrefixes, or the family's share of
// them for that client.
func clientKeyPrefixes(w Workload, client string) []string {
	f := familyOf(w.Family)
	if f == nil || f.keys == nil {
		return nil
	}
	if w.Key == "" {
		w.Key = f.key
	}
	if f.clientKeys != nil {
		return f.clientKeys(w, client)
	}
	return f.keys(w)
}

// authFamilies lists the families whose clients can run with auth on.
func authFamilies() []string {
	var out []string
	for _, f := range families {
		if f.keys != nil {
			out = append(out, f.name)
		}
	}
	return out
}

// withDefaults fills the zero Auth of s with a role per prefix of the
// recipe's keys and a user per client that holds them all; an Auth that
// lists users or roles is left as written.
func (a *Auth) withDefaults(s Scenario) *Auth {
	if a == nil || len(a.Users) > 0 || len(a.Roles) > 0 || len(a.Clients) > 0 {
		return a
	}
	out := *a
	roleOf := map[string]string{}
	for i, p := range KeyPrefixes(s.Workload) {
		name := fmt.Sprintf("recipe-%d", i)
		out.Roles = append(out.Roles, cluster.Role{Name: name, Prefix: p})
		roleOf[p] = name
	}
	out.Clients = map[string]string{}
	for _, c := range s.clientNames() {
		var roles []string
		for _, p := range clientKeyPrefixes(s.Workload, c) {
			roles = append(roles, roleOf[p])
		}
		out.Users = append(out.Users, cluster.User{Name: c, Password: c + "-password", Roles: roles})
		out.Clients[c] = c
	}
	return &out
}

// config is the cluster's auth configuration.
func (a *Auth) config() *cluster.AuthConfig {
	if a == nil {
		return nil
	}
	return &cluster.AuthConfig{Users: a.Users, Roles: a.Roles, Token: a.Token, TokenTTL: a.TokenTTL.D()}
}

// user is the user the client called name speaks as; "" when auth is off.
func (a *Auth) user(name string) string {
	if a == nil {
		return ""
	}
	return a.Clients[name]
}

// validateAuth reports, through bad, every reason the auth of s cannot
// run: settings etcd would refuse, a client with no user or a user that
// does not hold the recipe's keys, a recipe that cannot carry
// credentials; and, with auth off, a schedule that expires tokens.
func (s Scenario) validateAuth(bad func(format string, args ...any)) {
	a := s.Cluster.Auth
	if a == nil {
		for _, step := range expireTokenSteps(s) {
			bad("faults: %s expires tokens, but auth is off: set cluster.auth (\"auth\": {} gives each client a user of its own), or take the step out", step.where)
		}
		return
	}
	prefixes := KeyPrefixes(s.Workload)
	if prefixes == nil {
		bad("cluster.auth: the %s family does not run with auth yet; families that do: %v", s.Workload.Family, authFamilies())
		return
	}
	if s.Workload.Command != nil {
		bad("cluster.auth: workload.command's program dials etcd itself and is given no credentials (docs/protocol.md); run it with auth off")
	}
	switch a.Token {
	case "", cluster.TokenSimple, cluster.TokenJWT:
	default:
		bad("cluster.auth.token %q: want %q (the default) or %q", a.Token, cluster.TokenSimple, cluster.TokenJWT)
	}
	if a.TokenTTL < 0 || a.TokenTTL.D()%time.Second != 0 {
		bad("cluster.auth.token_ttl %v: want whole seconds, not negative (0 means etcd's 5 minutes)", a.TokenTTL)
	}
	roles := map[string]cluster.Role{}
	for i, r := range a.Roles {
		switch {
		case r.Name == "" || r.Name == cluster.RootUser:
			bad("cluster.auth.roles[%d] is named %q: give it a name other than root", i, r.Name)
		case r.Prefix == "":
			bad("cluster.auth.roles[%d] (%s) has no prefix; the recipe's keys are under %q", i, r.Name, prefixes)
		}
		if _, dup := roles[r.Name]; dup {
			bad("cluster.auth.roles[%d]: %q is defined twice", i, r.Name)
		}
		roles[r.Name] = r
	}
	users := map[string]cluster.User{}
	for i, u := range a.Users {
		switch {
		case u.Name == "" || u.Name == cluster.RootUser:
			bad("cluster.auth.users[%d] is named %q: root is the harness's, give it another name", i, u.Name)
		case u.Password == "":
			bad("cluster.auth.users[%d] (%s) has no password", i, u.Name)
		}
		if _, dup := users[u.Name]; dup {
			bad("cluster.auth.users[%d]: %q is defined twice", i, u.Name)
		}
		for _, r := range u.Roles {
			if _, ok := roles[r]; !ok {
				bad("cluster.auth.users[%d] (%s) holds role %q, which cluster.auth.roles does not define (roles: %v)", i, u.Name, r, slices.Sorted(maps.Keys(roles)))
			}
		}
		users[u.Name] = u
	}
	clients := s.clientNames()
	for _, c := range slices.Sorted(maps.Keys(a.Clients)) {
		if !slices.Contains(clients, c) {
			bad("cluster.auth.clients names client %q, which the run does not have (clients: %v)", c, clients)
		}
	}
	userNames := slices.Sorted(maps.Keys(users))
	for _, step := range expireTokenSteps(s) {
		if _, ok := users[step.user]; step.user != "" && step.user != cluster.RootUser && !ok {
			bad("faults: %s names user %q, which cluster.auth.users does not define; valid: root or one of %v", step.where, step.user, userNames)
		}
	}
	for _, c := range clients {
		name, ok := a.Clients[c]
		u, known := users[name]
		switch {
		case !ok || name == "":
			bad("cluster.auth.clients has no user for client %s: with auth on every client of the recipe needs credentials; give it one of %v", c, userNames)
			continue
		case name == cluster.RootUser:
			bad("cluster.auth.clients[%s] is root: the recipe's clients speak as users of their own, limited to its keys; give it one of %v", c, userNames)
			continue
		case !known:
			bad("cluster.auth.clients[%s] is %q, which cluster.auth.users does not define (users: %v)", c, name, userNames)
			continue
		}
		observer := strings.HasPrefix(c, "o")
		for _, p := range clientKeyPrefixes(s.Workload, c) {
			if !grants(u, roles, p, observer) {
				need := "read and write"
				if observer {
					need = "read"
				}
				bad("cluster.auth: user %s (client %s) may not %s the recipe's keys under %q: give it a role whose prefix is %q or a prefix of it", u.Name, c, need, p, p)
			}
		}
	}
}

// users names each client's user, what its roles grant and what the
// recipe needs of it, for the history (checker.Meta.Users); nil when auth
// is off.
func (s Scenario) users() map[string]checker.ClientUser {
	a := s.Cluster.Auth
	if a == nil {
		return nil
	}
	roles := map[string]cluster.Role{}
	for _, r := range a.Roles {
		roles[r.Name] = r
	}
	users := map[string]cluster.User{}
	for _, u := range a.Users {
		users[u.Name] = u
	}
	out := map[string]checker.ClientUser{}
	for _, c := range s.clientNames() {
		u := checker.ClientUser{User: a.Clients[c]}
		for _, name := range users[u.User].Roles {
			if r, ok := roles[name]; ok {
				u.Grants = append(u.Grants, checker.Grant{Prefix: r.Prefix, ReadOnly: r.ReadOnly})
			}
		}
		for _, p := range clientKeyPrefixes(s.Workload, c) {
			u.Needs = append(u.Needs, checker.Grant{Prefix: p, ReadOnly: strings.HasPrefix(c, "o")})
		}
		out[c] = u
	}
	return out
}

// grants reports whether one of u's roles grants the keys under p: to
// read, or to read and write unless readOnly.
func grants(u cluster.User, roles map[string]cluster.Role, p string, readOnly bool) bool {
	for _, name := range u.Roles {
		r, ok := roles[name]
		if ok && r.Prefix != "" && strings.HasPrefix(p, r.Prefix) && (readOnly || !r.ReadOnly) {
			return true
		}
	}
	return false
}

// tokenStep is a fault of a scenario's schedule that expires tokens, and
// where the schedule has it.
type tokenStep struct {
	where string // "timeline step 2 (expire-token(client c1))"
	user  string // the user it names (expire-token(user root)); "" if it aims at clients
}

// expireTokenSteps lists the steps, triggers and nemesis choices of s's
// schedule that expire tokens.
func expireTokenSteps(s Scenario) []tokenStep {
	var out []tokenStep
	note := func(where string, i int, f faults.Fault) {
		text := f.String()
		if rest, ok := strings.CutPrefix(text, "expire-token("); ok {
			var user string
			if u, ok := strings.CutPrefix(strings.TrimSuffix(rest, ")"), "user "); ok {
				user = u
			}
			out = append(out, tokenStep{where: fmt.Sprintf("%s %d (%s)", where, i, text), user: user})
		}
	}
	if tl := s.Faults.Timeline; tl != nil {
		for i, st := range tl.Steps {
			note("timeline step", i, st.Fault)
		}
		for i, tr := range tl.Triggers {
			note("timeline trigger", i, tr.Fault)
		}
	}
	if n := s.Faults.Nemesis; n != nil {
		for i, c := range n.Mix {
			note("nemesis choice", i, c.Fault)
		}
	}
	return out
}

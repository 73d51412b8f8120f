package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/internal/etcdauth"
)

// AuthConfig turns etcd's authentication on for a cluster (Config.Auth):
// its users, the roles they hold, and the tokens etcd hands them. Start
// creates them, and the root user the harness speaks as, then enables
// auth; a named client then speaks as the user its ClientConfig names.
type AuthConfig struct {
	// Users are the users besides root, each with its password and roles.
	Users []User `json:"users"`
	// Roles are the roles the users hold, each limited to a key prefix.
	Roles []Role `json:"roles,omitempty"`
	// Token is the kind of token etcd hands out: TokenSimple ("" means
	// it) or TokenJWT.
	Token TokenKind `json:"token,omitempty"`
	// TokenTTL is how long a token lives, in whole seconds. 0 means
	// etcd's default, 5 minutes.
	TokenTTL time.Duration `json:"token_ttl,omitempty"`
}

// User is one etcd user.
type User struct {
	Name     string   `json:"name"`
	Password string   `json:"password"`
	Roles    []string `json:"roles,omitempty"`
}

// Role grants access to every key under Prefix: read and write, or only
// read if ReadOnly.
type Role struct {
	Name     string `json:"name"`
	Prefix   string `json:"prefix"`
	ReadOnly bool   `json:"read_only,omitempty"`
}

// TokenKind is the kind of token etcd's auth hands out.
type TokenKind string

const (
	// TokenSimple is etcd's default: an opaque token the member that
	// issued it keeps in memory; it dies with its TTL, a restart of the
	// member, or a change to the user.
	TokenSimple TokenKind = "simple"
	// TokenJWT is a signed JSON Web Token that any member can check; it
	// dies with its TTL or a change to the auth store.
	TokenJWT TokenKind = "jwt"
)

// RootUser is the user the harness speaks as when auth is on (see
// Cluster.RootCredentials); Config.Auth may not define it.
const RootUser = etcdauth.RootUser

// validate reports the first thing wrong with a, naming the field.
func (a *AuthConfig) validate() error {
	if a == nil {
		return nil
	}
	var errs []error
	switch a.Token {
	case "", TokenSimple, TokenJWT:
	default:
		errs = append(errs, fmt.Errorf("Config.Auth.Token is %q; valid: %q (the default) or %q", a.Token, TokenSimple, TokenJWT))
	}
	if a.TokenTTL < 0 || a.TokenTTL%time.Second != 0 {
		errs = append(errs, fmt.Errorf("Config.Auth.TokenTTL is %v; it is whole seconds, not negative (0 means etcd's 5 minutes)", a.TokenTTL))
	}
	roles := map[string]bool{}
	for i, r := range a.Roles {
		if err := checkAuthName("Roles", i, r.Name, roles); err != nil {
			errs = append(errs, err)
		} else if r.Prefix == "" {
			errs = append(errs, fmt.Errorf("Config.Auth.Roles[%d] (%s) has no Prefix; a role here grants the keys under one prefix", i, r.Name))
		}
	}
	users := map[string]bool{}
	for i, u := range a.Users {
		if err := checkAuthName("Users", i, u.Name, users); err != nil {
			errs = append(errs, err)
		} else if u.Password == "" {
			errs = append(errs, fmt.Errorf("Config.Auth.Users[%d] (%s) has no Password", i, u.Name))
		}
		for _, r := range u.Roles {
			if !roles[r] {
				errs = append(errs, fmt.Errorf("Config.Auth.Users[%d] (%s) holds role %q, which Config.Auth.Roles does not define", i, u.Name, r))
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	return nil
}

// checkAuthName reports a user's or role's name (the i-th of Config.Auth's
// list) that is empty, root's, or seen before, and notes it as seen.
func checkAuthName(list string, i int, name string, seen map[string]bool) error {
	defer func() { seen[name] = true }()
	switch {
	case name == "" || name == RootUser:
		return fmt.Errorf("Config.Auth.%s[%d] has name %q; root is the harness's, give it another name", list, i, name)
	case seen[name]:
		return fmt.Errorf("Config.Auth.%s[%d]: %q is defined twice", list, i, name)
	}
	return nil
}

// password returns the password of user, or false if there is no such
// user.
func (a *AuthConfig) password(user string) (string, bool) {
	if user == RootUser {
		return etcdauth.RootPassword, true
	}
	for _, u := range a.Users {
		if u.Name == user {
			return u.Password, true
		}
	}
	return "", false
}

// userNames lists root and the configured users.
func (a *AuthConfig) userNames() []string {
	out := []string{RootUser}
	for _, u := range a.Users {
		out = append(out, u.Name)
	}
	return out
}

// RootCredentials returns the user and password the harness speaks as, or
// two empty strings when auth is off. Code that builds its own client of
// the cluster, an observer say, sets them in clientv3.Config.
func (c *Cluster) RootCredentials() (user, password string) {
	if c.cfg.Auth == nil {
		return "", ""
	}
	return RootUser, etcdauth.RootPassword
}

// withRoot sets the harness's credentials in cfg when auth is on.
func (c *Cluster) withRoot(cfg clientv3.Config) clientv3.Config {
	cfg.Username, cfg.Password = c.RootCredentials()
	return cfg
}

// authTokenOption is etcd's --auth-token for the cluster, writing the JWT
// keys into dir if it needs them.
func authTokenOption(a *AuthConfig, dir string) (string, error) {
	return etcdauth.TokenOption(a.Token == TokenJWT, a.TokenTTL, dir)
}

// enableAuth creates the roles, root and the users, then turns auth on.
func (c *Cluster) enableAuth(ctx context.Context) error {
	a := c.cfg.Auth
	if a == nil {
		return nil
	}
	cli, err := c.harnessClient(c.Members()[0])
	if err != nil {
		return err
	}
	err = func() error {
		for _, r := range a.Roles {
			if err := etcdauth.AddRole(ctx, cli, r.Name, r.Prefix, r.ReadOnly); err != nil {
				return err
			}
		}
		users := append([]User{{Name: RootUser, Password: etcdauth.RootPassword, Roles: []string{RootUser}}}, a.Users...)
		for _, u := range users {
			if err := etcdauth.AddUser(ctx, cli, u.Name, u.Password, u.Roles); err != nil {
				return err
			}
		}
		return etcdauth.Enable(ctx, cli)
	}()
	if err != nil {
		return fmt.Errorf("cluster: turning auth on: %w", err)
	}
	return nil
}

// ExpireTokens ends every token etcd has handed to user, as a token's TTL
// would: etcd's auth store is told the user changed (its password is set
// to what it is), which drops the user's simple tokens and moves the auth
// revision on, so that every token issued before — a JWT too, of any
// user — is refused as stale. clientv3 then authenticates again on the
// request that was refused. It returns the auth revision before and
// after.
func (c *Cluster) ExpireTokens(ctx context.Context, user string) (before, after uint64, err error) {
	a := c.cfg.Auth
	if a == nil {
		return 0, 0, errors.New("cluster: ExpireTokens: auth is off (Config.Auth is nil)")
	}
	pw, ok := a.password(user)
	if !ok {
		return 0, 0, fmt.Errorf("cluster: ExpireTokens: no user %q (users: %v)", user, a.userNames())
	}
	cli, err := c.harnessClient(c.runningMember())
	if err != nil {
		return 0, 0, err
	}
	before, after, err = etcdauth.ExpireTokens(ctx, cli, user, pw)
	if err != nil {
		return 0, 0, fmt.Errorf("cluster: ExpireTokens(%s): %w", user, err)
	}
	return before, after, nil
}

// runningMember returns a running member, the first one if none runs.
func (c *Cluster) runningMember() *Member {
	ms := c.Members()
	if i := slices.IndexFunc(ms, (*Member).Running); i >= 0 {
		return ms[i]
	}
	return ms[0]
}

// clientCredentials returns the user and password a named client speaks
// as, or an error if auth is on and the client names no user of it.
func (c *Cluster) clientCredentials(name string, cfg ClientConfig) (user, password string, err error) {
	a := c.cfg.Auth
	switch {
	case a == nil && cfg.User != "":
		return "", "", fmt.Errorf("cluster: client %q: ClientConfig.User is %q but auth is off (Config.Auth is nil)", name, cfg.User)
	case a == nil:
		return "", "", nil
	case cfg.User == "":
		return "", "", fmt.Errorf("cluster: client %q has no credentials and auth is on (Config.Auth): create it with NewClient(%q, ClientConfig{User: …}), User one of %v", name, name, a.userNames())
	}
	pw, ok := a.password(cfg.User)
	if !ok {
		return "", "", fmt.Errorf("cluster: client %q: ClientConfig.User %q is no user of Config.Auth (users: %v)", name, cfg.User, a.userNames())
	}
	return cfg.User, pw, nil
}

// ClientUser returns the user the named client speaks as ("" when auth is
// off). It does not wait for a dial or restart of the client in progress
// (its configuration is fixed when it is created): on the virtual clock,
// a goroutine waiting on a mutex keeps the clock, and so the dial's
// authentication round trip, from moving.
func (c *Cluster) ClientUser(name string) (string, error) {
	c.mu.Lock()
	err := c.openLocked()
	nc, ok := c.clients[name]
	ok = ok && nc.linked
	c.mu.Unlock()
	switch {
	case err != nil:
		return "", err
	case !ok:
		return "", fmt.Errorf("%w %q (clients: %v)", ErrUnknownNode, name, c.ClientNames())
	}
	return nc.cfg.User, nil
}

package cluster

import (
	"errors"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"

	"github.com/etcdsim/etcdsim/internal/bubble"
)

func authConfig(token TokenKind, ttl time.Duration) *AuthConfig {
	return &AuthConfig{
		Users:    []User{{Name: "app", Password: "app-pw", Roles: []string{"app"}}},
		Roles:    []Role{{Name: "app", Prefix: "/app/"}},
		Token:    token,
		TokenTTL: ttl,
	}
}

// With auth on, a client speaks as its user and may touch only its role's
// prefix; a client without a user is refused, naming what would do; the
// harness speaks as root.
func TestAuthUsersAndRoles(t *testing.T) {
	for _, token := range []TokenKind{TokenSimple, TokenJWT} {
		t.Run(string(token), func(t *testing.T) {
			bubble.Test(t, bubble.Options{Name: t.Name()}, func(t *testing.T) {
				c := New(t, Config{Clock: ClockVirtual, Auth: authConfig(token, 0)})
				ctx := testCtx(t)
				app, err := c.NewClient("c1", ClientConfig{User: "app"})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := app.Put(ctx, "/app/k", "v"); err != nil {
					t.Errorf("app writes its own prefix: %v", err)
				}
				if _, err := app.Put(ctx, "/other/k", "v"); !errors.Is(err, rpctypes.ErrPermissionDenied) {
					t.Errorf("app writes outside its prefix: %v; want permission denied", err)
				}
				_, err = c.NewClient("c2", ClientConfig{})
				if err == nil || !strings.Contains(err.Error(), "no credentials and auth is on") || !strings.Contains(err.Error(), "[root app]") {
					t.Errorf("a client without a user: %v; want an error naming the users", err)
				}
				if _, err := c.NewClient("c3", ClientConfig{User: "nobody"}); err == nil || !strings.Contains(err.Error(), `"nobody" is no user`) {
					t.Errorf("a client of an unknown user: %v", err)
				}
				// The harness (leader, health, admin) works as root.
				if err := c.WaitHealthy(ctx); err != nil {
					t.Fatal(err)
				}
			})
		})
	}
}

// Expiring a user's tokens moves the auth revision on; its client
// authenticates again on the next request and carries on. A token's TTL
// does the same on its own.
func TestAuthTokenExpiry(t *testing.T) {
	bubble.Test(t, bubble.Options{Name: t.Name()}, func(t *testing.T) {
		c := New(t, Config{Clock: ClockVirtual, Auth: authConfig(TokenSimple, 2*time.Second)})
		ctx := testCtx(t)
		app, err := c.NewClient("c1", ClientConfig{User: "app"})
		if err != nil {
			t.Fatal(err)
		}
		put(t, app, "/app/k", "1")
		before, after, err := c.ExpireTokens(ctx, "app")
		if err != nil {
			t.Fatal(err)
		}
		if after <= before {
			t.Errorf("auth revision %d → %d; want it to move on", before, after)
		}
		if _, err := app.Put(ctx, "/app/k", "2"); err != nil {
			t.Errorf("a put after the user's tokens expired: %v; want clientv3 to authenticate again", err)
		}
		time.Sleep(5 * time.Second) // past the 2s token TTL
		if _, err := app.Put(ctx, "/app/k", "3"); err != nil {
			t.Errorf("a put after the token's TTL: %v", err)
		}
		if _, _, err := c.ExpireTokens(ctx, "nobody"); err == nil {
			t.Error("ExpireTokens of an unknown user: no error")
		}
	})
}

func TestAuthConfigErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		auth *AuthConfig
		want string
	}{
		{"root defined", &AuthConfig{Users: []User{{Name: "root", Password: "x"}}}, "root is the harness's"},
		{"unknown role", &AuthConfig{Users: []User{{Name: "u", Password: "x", Roles: []string{"r"}}}}, `holds role "r", which Config.Auth.Roles does not define`},
		{"no password", &AuthConfig{Users: []User{{Name: "u"}}}, "has no Password"},
		{"role without prefix", &AuthConfig{Roles: []Role{{Name: "r"}}}, "has no Prefix"},
		{"bad token", &AuthConfig{Token: "oauth"}, `valid: "simple" (the default) or "jwt"`},
		{"fractional ttl", &AuthConfig{TokenTTL: 1500 * time.Millisecond}, "whole seconds"},
	} {
		_, err := Config{Auth: tt.auth}.withDefaults()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v; want it to say %q", tt.name, err, tt.want)
		}
	}
	if _, err := (Config{ClientKeepAliveTimeout: time.Second}).withDefaults(); err == nil {
		t.Error("ClientKeepAliveTimeout without ClientKeepAliveTime: no error")
	}
}

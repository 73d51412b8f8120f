package faults_test

import (
	"strings"
	"testing"
	"time"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/faults"
)

// expire-token on a cluster without auth is an error saying so.
func TestExpireTokenNeedsAuth(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		_, env := start(t, 3, "c1")
		_, err := env.Inject(clustertest.Context(t), faults.ExpireToken(faults.Client("c1")))
		if err == nil || !strings.Contains(err.Error(), "auth is off") || !strings.Contains(err.Error(), "cluster.Config.Auth") {
			t.Errorf("expire-token without auth: %v; want an error saying auth is off and where to turn it on", err)
		}
		// In a schedule, the error names the step that fired it.
		tl := faults.Timeline{Seed: 1, Steps: []faults.Step{faults.At(0, 0, faults.ExpireToken(faults.Client("c1")))}}
		err = tl.Run(clustertest.Context(t), env)
		if err == nil || !strings.HasPrefix(err.Error(), "faults: step 0: expire-token(client c1) on [c1]: auth is off") {
			t.Errorf("a timeline's expire-token without auth: %v; want it to name step 0", err)
		}
	})
}

// expire-token(user <name>) ends a user's tokens by name — root's, the
// harness's, too; an unknown user is an error naming the users; a user
// target on another fault is refused.
func TestExpireTokenOfAUser(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		c := cluster.New(t, cluster.Config{Members: 1, Auth: &cluster.AuthConfig{
			Users: []cluster.User{{Name: "app", Password: "pw", Roles: []string{"app"}}},
			Roles: []cluster.Role{{Name: "app", Prefix: "k"}},
		}})
		if _, err := c.NewClient("c1", cluster.ClientConfig{User: "app"}); err != nil {
			t.Fatal(err)
		}
		env := faults.NewEnv(c, faults.Config{})
		ctx := clustertest.Context(t)
		f, err := faults.Parse("expire-token(user root)")
		if err != nil || f.String() != "expire-token(user root)" {
			t.Fatalf("Parse(expire-token(user root)) = %v, %v", f, err)
		}
		if _, err := env.Inject(ctx, f); err != nil {
			t.Fatalf("expiring root's tokens: %v", err)
		}
		evs := env.Log().Events()
		if last := evs[len(evs)-1]; !strings.Contains(last.Detail, "expired the tokens of user root (auth revision") {
			t.Errorf("the event says %q; want root's tokens expired", last.Detail)
		}
		// The harness, root, authenticates again and carries on.
		if _, err := clustertest.Observer(t, c.Members()...).Get(ctx, "k"); err != nil {
			t.Errorf("the harness after its tokens expired: %v", err)
		}
		_, err = env.Inject(ctx, faults.ExpireToken(faults.User("nobody")))
		if err == nil || !strings.Contains(err.Error(), `no user "nobody" (users: [root app])`) {
			t.Errorf("expire-token(user nobody): %v; want an error naming the users", err)
		}
		err = faults.Timeline{Steps: []faults.Step{faults.At(0, time.Second, faults.Kill(faults.User("root")))}}.Validate(c)
		if err == nil || !strings.Contains(err.Error(), "user root names an etcd user, which only expire-token aims at") {
			t.Errorf("kill(user root): %v; want it refused", err)
		}
	})
}

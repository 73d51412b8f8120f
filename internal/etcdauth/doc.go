// Package etcdauth turns etcd's authentication on and works it, for a
// cluster whose Config.Auth is set: the root user the harness speaks as,
// the --auth-token option (making the JWT signing keys it names), the
// roles and users granted through etcd's auth API, and a user's tokens
// made stale on demand. What users and roles a cluster has is the
// cluster's configuration (cluster.AuthConfig); this package only speaks
// to etcd about them.
//
//	tok, err := etcdauth.TokenOption(true, time.Minute, dir) // etcd's --auth-token
//	err = etcdauth.AddRole(ctx, cli, "app", "/app/", false)
//	err = etcdauth.AddUser(ctx, cli, "alice", "pw", []string{"app"})
//	err = etcdauth.Enable(ctx, cli)
package etcdauth

package etcdauth

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// AddRole adds role name, granted every key under prefix: read and write,
// or only read if readOnly.
func AddRole(ctx context.Context, cli *clientv3.Client, name, prefix string, readOnly bool) error {
	if _, err := cli.RoleAdd(ctx, name); err != nil {
		return fmt.Errorf("adding role %s: %w", name, err)
	}
	perm := clientv3.PermissionType(clientv3.PermReadWrite)
	if readOnly {
		perm = clientv3.PermissionType(clientv3.PermRead)
	}
	if _, err := cli.RoleGrantPermission(ctx, name, prefix, clientv3.GetPrefixRangeEnd(prefix), perm); err != nil {
		return fmt.Errorf("granting role %s the prefix %s: %w", name, prefix, err)
	}
	return nil
}

// AddUser adds user name with its password and roles.
func AddUser(ctx context.Context, cli *clientv3.Client, name, password string, roles []string) error {
	if _, err := cli.UserAdd(ctx, name, password); err != nil {
		return fmt.Errorf("adding user %s: %w", name, err)
	}
	for _, r := range roles {
		if _, err := cli.UserGrantRole(ctx, name, r); err != nil {
			return fmt.Errorf("granting %s role %s: %w", name, r, err)
		}
	}
	return nil
}

// Enable turns auth on: from then on every request needs a user. Root
// must be there first: AddUser(ctx, cli, RootUser, RootPassword,
// []string{RootUser}), etcd's root role.
func Enable(ctx context.Context, cli *clientv3.Client) error {
	if _, err := cli.AuthEnable(ctx); err != nil {
		return fmt.Errorf("enabling: %w", err)
	}
	return nil
}

// ExpireTokens ends every token etcd has handed to user, as a token's TTL
// would: etcd's auth store is told the user changed (its password is set
// to password, what it is), which drops the user's simple tokens and moves
// the auth revision on, so that every token issued before — a JWT too, of
// any user — is refused as stale. It returns the auth revision before and
// after.
func ExpireTokens(ctx context.Context, cli *clientv3.Client, user, password string) (before, after uint64, err error) {
	st, err := cli.AuthStatus(ctx)
	if err != nil {
		return 0, 0, err
	}
	if _, err := cli.UserChangePassword(ctx, user, password); err != nil {
		return 0, 0, err
	}
	st2, err := cli.AuthStatus(ctx)
	if err != nil {
		return 0, 0, err
	}
	return st.AuthRevision, st2.AuthRevision, nil
}

package myrecipes

import (
	"context"
	"strconv"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Transfer moves amount from account from to account to the way
// hand-written etcd code often does: it reads each balance with its own
// Get and writes both new ones in one Txn that compares nothing — read
// committed. Two transfers that read the same balance both commit, and
// one's update is lost.
func Transfer(ctx context.Context, cli *clientv3.Client, from, to string, amount int64) error {
	a, _, err := balance(ctx, cli, from)
	if err != nil {
		return err
	}
	b, _, err := balance(ctx, cli, to)
	if err != nil {
		return err
	}
	_, err = cli.Txn(ctx).Then(put(from, a-amount), put(to, b+amount)).Commit()
	return err
}

// CheckedTransfer is Transfer with the check it lacks: the Txn commits
// only if neither account has been written since it was read (a compare
// on each mod revision), and otherwise the transfer reads again. A
// transfer that commits acts as if it read both accounts at its commit:
// serializable.
func CheckedTransfer(ctx context.Context, cli *clientv3.Client, from, to string, amount int64) error {
	for {
		a, arev, err := balance(ctx, cli, from)
		if err != nil {
			return err
		}
		b, brev, err := balance(ctx, cli, to)
		if err != nil {
			return err
		}
		resp, err := cli.Txn(ctx).
			If(clientv3.Compare(clientv3.ModRevision(from), "=", arev), clientv3.Compare(clientv3.ModRevision(to), "=", brev)).
			Then(put(from, a-amount), put(to, b+amount)).
			Commit()
		if err != nil || resp.Succeeded {
			return err
		}
	}
}

// balance reads an account: its balance, a decimal integer, and the
// revision it was last written at; 0 and 0 for an account never written.
func balance(ctx context.Context, cli *clientv3.Client, key string) (bal, modRev int64, err error) {
	resp, err := cli.Get(ctx, key)
	if err != nil || len(resp.Kvs) == 0 {
		return 0, 0, err
	}
	bal, err = strconv.ParseInt(string(resp.Kvs[0].Value), 10, 64)
	return bal, resp.Kvs[0].ModRevision, err
}

// put writes an account's balance.
func put(key string, bal int64) clientv3.Op {
	return clientv3.OpPut(key, strconv.FormatInt(bal, 10))
}

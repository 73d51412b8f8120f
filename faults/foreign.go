package faults

import (
	"context"
	"errors"
	"fmt"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Foreign writers are clients outside the recipe that change what the
// recipe keeps in etcd: an operator's `etcdctl del`, a cleanup job, a
// second deployment of the service writing the same prefix. They write
// through the harness's own connection (no fault touches it), once, at
// the instant they fire.
//
// A target names etcd keys (Key, Prefix) or, by role, the keys of a
// client's session: Delete(LockHolder("L")) deletes the keys attached to
// the lease of the client holding lock L — its lock key, as an operator
// who found it by its lease would — the way RevokeLease revokes that
// lease. A write aimed at nothing — a key that does not exist, a prefix
// with no key, a holder whose lease has no key — does nothing and is
// recorded as not applicable, saying so; a client whose recipe offers no
// lease is skipped as RevokeLease skips it.

// Delete deletes, now, the keys t names: Key(k) deletes k, Prefix(p)
// every key under p, and a target of clients (LockHolder, ElectionLeader,
// Client) the keys attached to each one's session lease. A lock whose
// key is deleted is free for the next waiter while its holder, not told,
// goes on.
func Delete(t Target) Fault {
	return Fault{action: "delete", targets: []Target{t}, kind: keysOrClients, instant: true}.foreign(func(ctx context.Context, cli *clientv3.Client, key string, prefix bool) (string, bool, error) {
		if prefix {
			resp, err := cli.Delete(ctx, key, clientv3.WithPrefix())
			if err != nil {
				return "", false, err
			}
			return fmt.Sprintf("deleted %d keys under %s at revision %d", resp.Deleted, key, resp.Header.Revision), resp.Deleted > 0, nil
		}
		resp, err := cli.Txn(ctx).If(clientv3.Compare(clientv3.CreateRevision(key), ">", 0)).Then(clientv3.OpDelete(key)).Commit()
		if err != nil {
			return "", false, err
		}
		return fmt.Sprintf("deleted %s at revision %d", key, resp.Header.Revision), resp.Succeeded, nil
	})
}

// Put overwrites, now, the keys t names with value: Key(k), or the keys
// attached to the session lease of each client t resolves to. The write
// carries no lease, so an overwritten lock key stays after its holder's
// session ends. A key that does not exist is not created: Put overwrites.
func Put(t Target, value string) Fault {
	f := Fault{
		action:  "put",
		targets: []Target{t},
		kind:    keysOrClients,
		instant: true,
		param:   value,
		check: func(shape) error {
			switch {
			case value == "":
				return errors.New("put needs a value")
			case strings.ContainsAny(value, ",()") || strings.TrimSpace(value) != value:
				return fmt.Errorf("put's value %q may not contain commas or parentheses, nor begin or end with a space (its text form could not be read back)", value)
			case t.kind == prefixTarget:
				return fmt.Errorf("put overwrites keys one by one; aim it at key:<k> or a client's session, not %v", t)
			}
			return nil
		},
	}
	return f.foreign(func(ctx context.Context, cli *clientv3.Client, key string, _ bool) (string, bool, error) {
		resp, err := cli.Txn(ctx).If(clientv3.Compare(clientv3.CreateRevision(key), ">", 0)).Then(clientv3.OpPut(key, value)).Commit()
		if err != nil {
			return "", false, err
		}
		return fmt.Sprintf("put %s=%s at revision %d", key, value, resp.Header.Revision), resp.Succeeded, nil
	})
}

// write is one foreign write to key (a prefix if prefix): what it did, and
// whether there was anything to do it to.
type write func(ctx context.Context, cli *clientv3.Client, key string, prefix bool) (done string, hit bool, err error)

// foreign makes f apply w to the keys its target names.
func (f Fault) foreign(w write) Fault {
	t := f.targets[0]
	f.apply = func(ctx context.Context, x *shot) (healFunc, string, error) {
		cli, err := x.env.admin(nil)
		if err != nil {
			return noHeal, "", err
		}
		defer cli.Close()
		var done, missed []string
		var errs []error
		do := func(key string, prefix bool) {
			d, hit, err := w(ctx, cli, key, prefix)
			switch {
			case err != nil:
				errs = append(errs, fmt.Errorf("%s %s: %w", f.action, key, err))
			case !hit && prefix:
				missed = append(missed, fmt.Sprintf("no key under prefix %q", key))
			case !hit:
				missed = append(missed, fmt.Sprintf("key %q does not exist", key))
			default:
				done = append(done, d)
			}
		}
		switch {
		case t.kind == keyTarget:
			do(t.arg, false)
		case t.kind == prefixTarget:
			do(t.arg, true)
		default:
			for _, cl := range x.targets[0] {
				keys, why, err := x.env.sessionKeys(ctx, cli, cl)
				switch {
				case err != nil:
					errs = append(errs, err)
				case why != "":
					missed = append(missed, why)
				}
				for _, k := range keys {
					do(k, false)
				}
			}
		}
		if len(done) == 0 && len(errs) == 0 {
			return noHeal, "", &notApplicable{why: joinWhy(missed) + "; " + f.action + " writes only what exists"}
		}
		detail := strings.Join(done, ", ")
		if len(missed) > 0 {
			detail = joinDetail(detail, "nothing to "+f.action+": "+joinWhy(missed))
		}
		return noHeal, detail, errors.Join(errs...)
	}
	return f
}

// sessionKeys returns the keys attached to client's session lease, or why
// there are none.
func (e *Env) sessionKeys(ctx context.Context, cli *clientv3.Client, client string) (keys []string, why string, err error) {
	if why, ok := e.noLeaseWhy(client); ok {
		return nil, fmt.Sprintf("client %s: %s", client, why), nil
	}
	id, ok := e.SessionLease(client)
	if !ok {
		return nil, "", fmt.Errorf("no session lease known for client %s: none of its recorded acquires, campaigns or registrations carried one (checker.Output.Lease), and its workload did not say why (Env.NoLease)", client)
	}
	resp, err := cli.TimeToLive(ctx, id, clientv3.WithAttachedKeys())
	if err != nil {
		return nil, "", fmt.Errorf("the keys of client %s's lease %x: %w", client, int64(id), err)
	}
	if resp.TTL < 0 {
		return nil, fmt.Sprintf("client %s's lease %x is gone, and its keys with it", client, int64(id)), nil
	}
	for _, k := range resp.Keys {
		keys = append(keys, string(k))
	}
	if len(keys) == 0 {
		return nil, fmt.Sprintf("client %s's lease %x has no key attached", client, int64(id)), nil
	}
	return keys, "", nil
}

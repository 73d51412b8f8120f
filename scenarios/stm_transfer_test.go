package scenarios_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/recipes/stm"
	"github.com/etcdsim/etcdsim/scenarios"
	"github.com/etcdsim/etcdsim/seed"
)

// Three transfers as an application writes them, plugged into the stm
// family whole (stm.Transfers): the workload calls each, records what
// its client read and wrote, and the judges judge that.

// unguardedTransfer reads both balances, then writes both new ones in a
// Txn that compares nothing: two transfers that read the same balance
// both commit, and one's update is lost.
func unguardedTransfer(ctx context.Context, cli *clientv3.Client, from, to string, amount int64) error {
	a, err := balanceOf(ctx, cli, from)
	if err != nil {
		return err
	}
	b, err := balanceOf(ctx, cli, to)
	if err != nil {
		return err
	}
	_, err = cli.Txn(ctx).Then(clientv3.OpPut(from, strconv.FormatInt(a-amount, 10)), clientv3.OpPut(to, strconv.FormatInt(b+amount, 10))).Commit()
	return err
}

func balanceOf(ctx context.Context, cli *clientv3.Client, key string) (int64, error) {
	resp, err := cli.Get(ctx, key)
	if err != nil || len(resp.Kvs) == 0 {
		return 0, err
	}
	return strconv.ParseInt(string(resp.Kvs[0].Value), 10, 64)
}

// stmTransfer is the same business code in etcd's STM at
// SerializableSnapshot.
func stmTransfer(ctx context.Context, cli *clientv3.Client, from, to string, amount int64) error {
	_, err := concurrency.NewSTM(cli, func(s concurrency.STM) error {
		a, _ := strconv.ParseInt(s.Get(from), 10, 64) // a missing account holds 0
		b, _ := strconv.ParseInt(s.Get(to), 10, 64)
		s.Put(from, strconv.FormatInt(a-amount, 10))
		s.Put(to, strconv.FormatInt(b+amount, 10))
		return nil
	}, concurrency.WithIsolation(concurrency.SerializableSnapshot), concurrency.WithAbortContext(ctx))
	return err
}

// casTransfer reads both balances, then commits only if neither account
// changed since (compares on mod revision), and otherwise reads again.
func casTransfer(ctx context.Context, cli *clientv3.Client, from, to string, amount int64) error {
	for {
		resp, err := cli.Txn(ctx).Then(clientv3.OpGet(from), clientv3.OpGet(to)).Commit()
		if err != nil {
			return err
		}
		var bal [2]int64
		var cmps []clientv3.Cmp
		for i, key := range []string{from, to} {
			kvs := resp.Responses[i].GetResponseRange().Kvs
			rev := int64(0)
			if len(kvs) > 0 {
				bal[i], _ = strconv.ParseInt(string(kvs[0].Value), 10, 64)
				rev = kvs[0].ModRevision
			}
			cmps = append(cmps, clientv3.Compare(clientv3.ModRevision(key), "=", rev))
		}
		put, err := cli.Txn(ctx).If(cmps...).Then(clientv3.OpPut(from, strconv.FormatInt(bal[0]-amount, 10)),
			clientv3.OpPut(to, strconv.FormatInt(bal[1]+amount, 10))).Commit()
		if err != nil || put.Succeeded {
			return err
		}
	}
}

// A transfer that writes without a compare loses updates, and the
// serializability judge names the lost update. Detection is a rate, so
// the test gives it up to three seeds.
func TestUserTransferLostUpdateIsCaught(t *testing.T) {
	r := stm.Recipe{Name: "unguarded-transfer", Summary: "two Gets, then a Txn that compares nothing", New: stm.Transfers(unguardedTransfer)}
	s := scenarios.STMSafety(r)[0]
	s.Expect = checker.Expectation{Checker: checker.CheckerSerializable, Violation: checker.ViolationNotSerializable}
	var why []string
	for i := range 3 {
		c := s
		c.Seed = s.Seed + seed.Seed(i)
		res := run(t, c)
		if res.Met && strings.Contains(res.Why, "a lost update") {
			t.Logf("seed %s: %s", c.Seed, res.Why)
			return
		}
		why = append(why, fmt.Sprintf("seed %s: met %v: %s", c.Seed, res.Met, res.Why))
	}
	t.Errorf("%s: no lost update named on three seeds:\n%s", s.Name, strings.Join(why, "\n"))
}

// The careful transfers keep the books and are serializable. Under -race
// only the STM's runs: the CAS transfer's go through the same workload,
// recorder and judges, and make test runs them without the detector
// (REGISTRY_TESTS).
func TestUserTransferCarefulPasses(t *testing.T) {
	for i, r := range []stm.Recipe{
		{Name: "stm-transfer", Summary: "etcd's STM at SerializableSnapshot", New: stm.Transfers(stmTransfer)},
		{Name: "cas-transfer", Summary: "a Txn that reads both, then a Txn that compares both mod revisions", New: stm.Transfers(casTransfer)},
	} {
		t.Run(r.Name, func(t *testing.T) {
			if i > 0 {
				raceLeavesOut(t, "stm-transfer's runs put the same workload, recorder and judges under it")
			}
			parallelWithoutRace(t)
			for _, s := range scenarios.STMSafety(r) {
				res := scenarios.Test(t, s)
				if res == nil {
					continue
				}
				// Judged on what the transfers did, not on nothing.
				for _, c := range res.Checks {
					m := c.Metrics
					if c.Checker == checker.CheckerSerializable && (m["committed"] < 100 || m["edges"] < 100) {
						t.Errorf("%s: %s judged %v committed txns and %v dependencies, want each in the hundreds", s.Name, c.Checker, m["committed"], m["edges"])
					}
					if c.Checker == checker.CheckerBankTotal && m["audits"] < 10 {
						t.Errorf("%s: %v audits, want tens", s.Name, m["audits"])
					}
				}
			}
		})
	}
}

// run runs s on the virtual clock, failing the test on a harness error.
func run(t *testing.T, s scenarios.Scenario) *scenarios.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := scenarios.Run(ctx, s, scenarios.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// A transfer that does not pass its ctx on makes its requests where the
// workload cannot record them: the run says so, once, and the audits
// still judge the books.
func TestUserTransferWithoutItsCtxIsNamed(t *testing.T) {
	careless := func(_ context.Context, cli *clientv3.Client, from, to string, amount int64) error {
		return stmTransfer(cli.Ctx(), cli, from, to, amount)
	}
	s := scenarios.STMSafety(stm.Recipe{Name: "ctx-dropping-transfer", Summary: "etcd's STM on the client's own context", New: stm.Transfers(careless)})[0]
	res := run(t, s)
	n := 0
	for _, f := range res.RecipeFaults {
		if strings.Contains(f, "made no request to etcd under the ctx it was given") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("recipe faults %q: want the unrecorded transfer named once", res.RecipeFaults)
	}
	for _, c := range res.Checks {
		if c.Checker == checker.CheckerBankTotal && (c.Verdict != checker.VerdictOK || c.Metrics["audits"] < 10) {
			t.Errorf("%s: %s %s, want ok over tens of audits", s.Name, c.Checker, c.Summary)
		}
	}
}

package stm_test

import (
	"context"
	"fmt"
	"log"
	"strconv"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/recipes/stm"
)

// transfer is an application's own transfer, in etcd's STM.
func transfer(ctx context.Context, cli *clientv3.Client, from, to string, amount int64) error {
	_, err := concurrency.NewSTM(cli, func(s concurrency.STM) error {
		a, _ := strconv.ParseInt(s.Get(from), 10, 64) // a missing account holds 0
		b, _ := strconv.ParseInt(s.Get(to), 10, 64)
		s.Put(from, strconv.FormatInt(a-amount, 10))
		s.Put(to, strconv.FormatInt(b+amount, 10))
		return nil
	}, concurrency.WithAbortContext(ctx))
	return err
}

// A user's transfer becomes a recipe of the stm family in one line:
// stm.Transfers makes its constructor, whose Txner runs the transfer and
// audits through etcd's STM. scenarios.STMSafety takes the recipe.
// Real clock: an Example has no *testing.T, so it cannot enter a bubble.
func ExampleTransfers() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := cluster.Start(ctx, cluster.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	cli, _ := c.Client("c1")

	r := stm.Recipe{Name: "my-transfer", Summary: "etcd's STM at SerializableSnapshot", New: stm.Transfers(transfer)}
	t, err := r.New(cli)
	if err != nil {
		log.Fatal(err)
	}
	tr := t.(stm.Transferer)
	for _, amount := range []int64{30, 12} {
		if err := tr.Transfer(ctx, "bank/0", "bank/1", amount); err != nil {
			log.Fatal(err)
		}
	}
	_, err = t.Txn(ctx, func(tx stm.Tx) error { // an audit
		for _, k := range []string{"bank/0", "bank/1"} {
			v, _, err := tx.Get(k)
			if err != nil {
				return err
			}
			fmt.Println(k, v)
		}
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	_, err = stm.Transfers(nil)(cli)
	fmt.Println(err)
	// Output:
	// bank/0 -42
	// bank/1 42
	// stm: Transfers: the transfer is nil
}

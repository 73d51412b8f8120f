package cluster

import (
	"context"
	"testing"
	"time"
)

func TestSmoke(t *testing.T) {
	for i := 0; i < 3; i++ {
		t0 := time.Now()
		c, err := Start(context.Background(), Config{})
		if err != nil {
			t.Fatal(err)
		}
		t1 := time.Now()
		cli, err := c.Client("c1")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if _, err := cli.Put(ctx, "k", "v"); err != nil {
			t.Fatal(err)
		}
		cancel()
		t2 := time.Now()
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		t.Logf("start %v put %v close %v", t1.Sub(t0), t2.Sub(t1), time.Since(t2))
	}
}

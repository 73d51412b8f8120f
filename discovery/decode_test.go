package discovery_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/etcdsim/etcdsim/cluster"
	"github.com/etcdsim/etcdsim/cluster/clustertest"
	"github.com/etcdsim/etcdsim/discovery"
)

// ownFormat is a registrar's record format of its own, "addr=<addr>",
// and its decoder.
func ownFormat(addr string) string { return "addr=" + addr }

func decodeOwn(_, value string) (string, error) {
	addr, ok := strings.CutPrefix(value, "addr=")
	if !ok {
		return "", errors.New(`not "addr=<address>"`)
	}
	return addr, nil
}

// TestRelistingDecodes: the relisting resolver given a registrar's Decode
// reads that registrar's records; a record the Decode cannot read (or
// reads as an empty address) is left out of the set, and the set says
// why in State.Err: the key, the value (the start of it, for a long one)
// and the decoder's error. Once the record is deleted the set is current
// again.
func TestRelistingDecodes(t *testing.T) {
	clustertest.Virtual(t, func(t *testing.T) {
		c := cluster.New(t, cluster.Config{})
		ctx := clustertest.Context(t)
		cli := clustertest.Client(t, c, "reg")
		rr, err := discovery.LookupResolver("relisting")
		if err != nil {
			t.Fatal(err)
		}
		res, err := rr.New(clustertest.Client(t, c, "res"), "own", discovery.Options{Decode: decodeOwn})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { res.Close() })
		for _, kv := range [][2]string{{"own/a", ownFormat("10.0.0.1:1")}, {"own/b", ownFormat("10.0.0.2:1")}} {
			if _, err := cli.Put(ctx, kv[0], kv[1]); err != nil {
				t.Fatal(err)
			}
		}
		waitState(t, ctx, res, "both records decoded", hasAddrs("10.0.0.1:1", "10.0.0.2:1"))

		long := discovery.Record("10.0.0.3:1") + strings.Repeat(" ", 100) // the endpoints manager's record: not this format
		if _, err := cli.Put(ctx, "own/c", long); err != nil {
			t.Fatal(err)
		}
		s := waitState(t, ctx, res, "an unreadable record", func(s discovery.State) bool { return s.Err != nil })
		if got := s.Addrs(); len(got) != 2 {
			t.Errorf("set with an unreadable record = %v, want the two readable ones", got)
		}
		bad := discovery.Unreadable(s.Err)
		if len(bad) != 1 || bad[0].Key != "own/c" || bad[0].Value != long {
			t.Fatalf("Unreadable(%v) = %+v, want the record at own/c", s.Err, bad)
		}
		want := `discovery: the decoder could not read the record at key "own/c", value "{\"Op\":0,\"Addr\":\"10.0.0.3:1\",\"Metadata\":null}` +
			strings.Repeat(" ", 64-len(discovery.Record("10.0.0.3:1"))) + `"… (` + strconv.Itoa(len(long)) + ` bytes in all): not "addr=<address>"`
		if got := bad[0].Error(); got != want {
			t.Errorf("sentence:\n got %s\nwant %s", got, want)
		}

		if _, err := cli.Put(ctx, "own/c", "addr="); err != nil {
			t.Fatal(err)
		}
		waitState(t, ctx, res, "an empty address refused", func(s discovery.State) bool {
			b := discovery.Unreadable(s.Err)
			return len(b) == 1 && strings.HasSuffix(b[0].Error(), `value "addr=": the decoder returned an empty address`)
		})
		if _, err := cli.Delete(ctx, "own/c"); err != nil {
			t.Fatal(err)
		}
		waitState(t, ctx, res, "the set current again", hasAddrs("10.0.0.1:1", "10.0.0.2:1"))
	})
}

// TestDecodeEndpoint: the default decoder reads the endpoints manager's
// record and says what is wrong with anything else.
func TestDecodeEndpoint(t *testing.T) {
	for _, tt := range []struct {
		name, value, addr, err string
	}{
		{name: "record", value: discovery.Record("10.0.0.7:8080"), addr: "10.0.0.7:8080"},
		{name: "not JSON", value: "addr=10.0.0.7:8080", err: "not the JSON record of etcd's endpoints manager"},
		{name: "delete", value: `{"Op":1,"Addr":"10.0.0.7:8080"}`, err: "Op 1, not 0 (add)"},
		{name: "no address", value: `{"address":"10.0.0.7:8080"}`, err: `no "Addr"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			addr, err := discovery.DecodeEndpoint("svc/x", tt.value)
			if addr != tt.addr || (err == nil) != (tt.err == "") || (err != nil && !strings.Contains(err.Error(), tt.err)) {
				t.Errorf("DecodeEndpoint(%q) = %q, %v; want %q, an error containing %q", tt.value, addr, err, tt.addr, tt.err)
			}
		})
	}
}

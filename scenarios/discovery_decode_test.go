package scenarios_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/etcdsim/etcdsim/checker"
	"github.com/etcdsim/etcdsim/discovery"
	"github.com/etcdsim/etcdsim/scenarios"
)

// ownRecord is the record format of ownRegistrar, "addr=<address>", and
// decodeOwn reads it.
func ownRecord(addr string) string { return "addr=" + addr }

func decodeOwn(_, value string) (string, error) {
	addr, ok := strings.CutPrefix(value, "addr=")
	if !ok {
		return "", errors.New(`not "addr=<address>"`)
	}
	return addr, nil
}

// ownRegistrar writes a record of its own format on a lease clientv3 keeps
// alive, and, as a discovery.Funcs, never registers again once the lease
// is lost.
var ownRegistrar = discovery.RegistrarRecipe{Name: "own-format", Summary: `"addr=<address>" on a lease kept alive; never registers again`,
	New: func(cli *clientv3.Client, service, addr string, opts discovery.Options) (discovery.Registrar, error) {
		ttl := opts.TTL
		if ttl == 0 {
			ttl = discovery.DefaultTTL
		}
		key := service + "/" + addr
		ctx, cancel := context.WithCancel(context.Background())
		lost := make(chan struct{})
		var wg sync.WaitGroup
		return &discovery.Funcs{Name: key, Lost: lost,
			Put: func(pctx context.Context) error {
				g, err := cli.Grant(pctx, int64(ttl/time.Second))
				if err != nil {
					return err
				}
				if _, err := cli.Put(pctx, key, ownRecord(addr), clientv3.WithLease(g.ID)); err != nil {
					return err
				}
				ch, err := cli.KeepAlive(ctx, g.ID)
				if err != nil {
					return err
				}
				wg.Go(func() {
					for range ch {
					}
					close(lost)
				})
				return nil
			},
			Delete: func(dctx context.Context) error { _, err := cli.Delete(dctx, key); return err },
			Stop:   func() { cancel(); wg.Wait() },
		}, nil
	}}

// TestDiscoveryDecoder: a registrar that writes a record format of its
// own is judged alone, beside the correct resolver, once the scenario has
// its decoder. It passes a schedule that never takes its lease from a
// live backend (backends crash and come back, registering anew), and
// fails the one that revokes its lease (it never registers again). Without the
// decoder, or with a decoder that fails on a record, the resolver's sets
// that hold the record are not judged: a sentence names the key, the
// value and the decoder's error, and the run is judged all the same —
// unknown here, where no set could be read — never a violation blaming an
// instance the resolver did not show.
func TestDiscoveryDecoder(t *testing.T) {
	byName := map[string]scenarios.Scenario{}
	for _, s := range scenarios.DiscoverySafety(ownRegistrar) {
		byName[strings.TrimPrefix(s.Name, "discovery/own-format/")] = s
	}
	// failing cannot read the records of addresses whose IP ends in an
	// even number: one or two of the three backends, each run.
	failing := func(key, value string) (string, error) {
		addr, err := decodeOwn(key, value)
		if err != nil {
			return "", err
		}
		if host, _, _ := strings.Cut(addr, ":"); (host[len(host)-1]-'0')%2 == 0 {
			return "", errors.New("this key is not ours")
		}
		return addr, nil
	}
	for _, tc := range []struct {
		name     string
		schedule string
		decode   discovery.Decode
		verdicts []checker.Verdict // the verdicts it may have
		says     string            // in a recipe fault
	}{
		{name: "passes", schedule: "crash-backend", decode: decodeOwn, verdicts: []checker.Verdict{checker.VerdictOK}},
		{name: "fails", schedule: "revoke-lease", decode: decodeOwn, verdicts: []checker.Verdict{checker.VerdictViolation}},
		{name: "no-decoder", schedule: "crash-backend", verdicts: []checker.Verdict{checker.VerdictUnknown},
			says: `value "addr=`},
		{name: "failing-decoder", schedule: "crash-backend", decode: failing, verdicts: []checker.Verdict{checker.VerdictOK, checker.VerdictUnknown},
			says: `": this key is not ours; the resolver's sets that held it were not judged: the record is counted unreadable, not as a missing instance`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := byName[tc.schedule].WithDecoder(tc.decode)
			res, err := scenarios.Run(context.Background(), s, scenarios.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var conv *checker.Result
			for i, c := range res.Checks {
				if c.Checker == checker.CheckerDiscoveryConvergence {
					conv = &res.Checks[i]
				}
			}
			if conv == nil {
				t.Fatalf("no %s check in %v", checker.CheckerDiscoveryConvergence, res.Checks)
			}
			if !slices.Contains(tc.verdicts, conv.Verdict) {
				t.Errorf("verdict %s (%s), want one of %v", conv.Verdict, conv.Summary, tc.verdicts)
			}
			faults := strings.Join(res.RecipeFaults, "\n")
			if tc.says == "" {
				if strings.Contains(faults, "could not read") {
					t.Errorf("a record unreadable with the right decoder:\n%s", faults)
				}
				return
			}
			if conv.Verdict == checker.VerdictViolation {
				t.Errorf("unreadable records judged as a violation: %s", conv.Summary)
			}
			if !strings.Contains(faults, `discovery: the decoder could not read the record at key "svc/`) || !strings.Contains(faults, tc.says) {
				t.Errorf("recipe faults do not name the unreadable record (want %q):\n%s", tc.says, faults)
			}
			if n := strings.Count(faults, "could not read"); n > 4 {
				t.Errorf("%d sentences of unreadable records, want at most 3 and one counting the rest:\n%s", n, faults)
			}
			if tc.decode == nil && !strings.Contains(faults, "(Scenario.WithDecoder)") {
				t.Errorf("recipe faults do not say how to give the decoder:\n%s", faults)
			}
			t.Logf("%s: %s; %s", conv.Verdict, conv.Summary, res.RecipeFaults)
		})
	}
}

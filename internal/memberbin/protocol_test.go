package memberbin

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.etcd.io/etcd/client/pkg/v3/transport"
	"go.etcd.io/etcd/server/v3/embed"
)

// A configuration survives the trip through JSON to the member binary:
// what the binary runs is what the cluster would have run itself.
func TestSpecRoundTrip(t *testing.T) {
	in := embed.NewConfig()
	in.Name, in.Dir = "m1", "/data/m1"
	in.AdvertisePeerUrls = []url.URL{{Scheme: "https", Host: "127.0.0.1:4001"}}
	in.AdvertiseClientUrls = []url.URL{{Scheme: "http", Host: "127.0.0.1:4002"}}
	in.InitialCluster = "m0=https://127.0.0.1:4000,m1=https://127.0.0.1:4001"
	in.InitialClusterToken, in.ClusterState = "etcdsim-x", embed.ClusterStateFlagExisting
	in.TickMs, in.ElectionMs, in.UnsafeNoFsync, in.SnapshotCount = 10, 100, true, 50
	in.PeerTLSInfo = transport.TLSInfo{CertFile: "m1.crt", KeyFile: "m1.key", TrustedCAFile: "ca.crt", ClientCertAuth: true}
	in.AuthToken, in.BcryptCost, in.AuthTokenTTL = "simple", 4, 30

	spec, err := FromEmbed(in)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	var back Spec
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	out, err := back.Embed("127.0.0.1:0", "127.0.0.1:4003")
	if err != nil {
		t.Fatal(err)
	}
	type view struct {
		Name, Dir, Peer, Client, Initial, Token, State string
		Tick, Election                                 uint
		NoFsync                                        bool
		Snapshots                                      uint64
		Cert, Key, CA                                  string
		CertAuth                                       bool
		Auth                                           string
		Bcrypt, TokenTTL                               uint
	}
	see := func(c *embed.Config) view {
		return view{c.Name, c.Dir, c.AdvertisePeerUrls[0].String(), c.AdvertiseClientUrls[0].String(), c.InitialCluster,
			c.InitialClusterToken, c.ClusterState, c.TickMs, c.ElectionMs, c.UnsafeNoFsync, c.SnapshotCount,
			c.PeerTLSInfo.CertFile, c.PeerTLSInfo.KeyFile, c.PeerTLSInfo.TrustedCAFile, c.PeerTLSInfo.ClientCertAuth,
			c.AuthToken, c.BcryptCost, c.AuthTokenTTL}
	}
	if diff := cmp.Diff(see(in), see(out)); diff != "" {
		t.Errorf("the configuration changed on its way (-want +got):\n%s", diff)
	}
	if got := out.ListenClientUrls[0].Host; got != "127.0.0.1:4003" {
		t.Errorf("client listener %s; want the one asked for", got)
	}
}

func TestFromEmbedNeedsOneURLEach(t *testing.T) {
	cfg := embed.NewConfig()
	cfg.AdvertiseClientUrls = append(cfg.AdvertiseClientUrls, url.URL{Scheme: "http", Host: "127.0.0.1:1"})
	_, err := FromEmbed(cfg)
	if err == nil || !strings.Contains(err.Error(), "one peer and one client URL") {
		t.Errorf("FromEmbed with two client URLs = %v; want an error saying a member advertises one of each", err)
	}
}

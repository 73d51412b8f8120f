package gozero

import (
	"fmt"
	"net/url"
	"slices"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// endpointsOf returns the etcd endpoints cli dials, for go-zero to dial
// itself: on etcdsim's real clock, the URLs that carry that client's
// traffic alone (cluster.Cluster.ClientEndpoints). An endpoint go-zero
// cannot dial — none at all, or not an http URL with a host and port, as
// the virtual clock's in-memory addresses are not — is an error naming it.
func endpointsOf(cli *clientv3.Client, what string) ([]string, error) {
	eps := slices.Clone(cli.Endpoints())
	if len(eps) == 0 {
		return nil, fmt.Errorf("gozero: %s: the client has no endpoints for go-zero to dial", what)
	}
	for _, ep := range eps {
		u, err := url.Parse(ep)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Port() == "" {
			return nil, fmt.Errorf("gozero: %s: endpoint %q is not an http URL with a host and port that go-zero can dial "+
				"(go-zero dials etcd itself and never closes its clients: run it on the real clock, where a named client's endpoints are "+
				"cluster.Cluster.ClientEndpoints' URLs; %s)", what, ep, RealClock)
		}
	}
	return eps, nil
}

package cluster

import (
	"fmt"

	"go.etcd.io/etcd/client/pkg/v3/types"
	"go.etcd.io/etcd/server/v3/etcdserver/api/membership"
)

// idBits is the part of a member's ID that etcd puts in the IDs it makes:
// a lease's ID, and a request's, are the low 16 bits of the ID of the
// member that made them over a count that starts at the member's start
// time in milliseconds, and a lease's loses its top bit (etcd's
// idutil.Generator and EtcdServer.LeaseGrant).
const idBits = 1<<15 - 1

// tokenPicker is pickToken; a test puts a token of its own in its place.
var tokenPicker = pickToken

// pickToken returns the initial-cluster token for the first members, given
// as name to peer URL: base,
// or base with a number after it, the first that gives no two members the
// same idBits. On the virtual clock every member starts at the same
// millisecond, so two members alike in those bits hand out the same IDs
// from the same counts: a second lease granted under an ID the other
// already gave is refused ("etcdserver: lease already exists", about once
// in ten thousand three-member clusters), and a request applied on a
// member whose own pending request has its ID would answer that one. A
// member's ID is a hash of its peer URLs and the token, so a token that
// keeps the bits apart is found at once. Members added later get IDs etcd
// hashes with the time as well, which this cannot choose.
func pickToken(base string, peers map[string]string) (string, error) {
	for n := 0; n < 1000; n++ {
		token := base
		if n > 0 {
			token = fmt.Sprintf("%s-%d", base, n)
		}
		seen := map[uint64]bool{}
		apart := true
		for name, peer := range peers {
			urls, err := types.NewURLs([]string{peer})
			if err != nil {
				return "", fmt.Errorf("cluster: peer URL of %s: %w", name, err)
			}
			bits := uint64(membership.NewMember(name, urls, token, nil).ID) & idBits
			if seen[bits] {
				apart = false
				break
			}
			seen[bits] = true
		}
		if apart {
			return token, nil
		}
	}
	return "", fmt.Errorf("cluster: no initial-cluster token keeps the IDs of %d members apart", len(peers))
}

// Package peertls is a throw-away certificate authority for one cluster's
// peer TLS on the real clock. Its only job is to let the cluster's peer
// proxies tell members apart: every member presents its own certificate,
// whose common name is the member's name, on every connection it opens to
// a peer, and the proxy in front of each member demands one.
//
//	ca, err := peertls.NewCA(filepath.Join(dir, "certs"))
//	cert, info, err := ca.Issue("m0")  // info: etcd's --peer-* files
//	proxyTLS := ca.ServerConfig(cert)  // the peer proxy's side
package peertls

package peertls

import (
	"crypto/tls"
	"net"
	"os"
	"path/filepath"
	"testing"
)

// A member's certificate passes its peer's proxy, which then knows the
// member by name; a certificate of another authority does not pass.
func TestProxyKnowsTheMemberByItsCertificate(t *testing.T) {
	ca, err := NewCA(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m0, _, err := ca.Issue("m0")
	if err != nil {
		t.Fatal(err)
	}
	m1, info, err := ca.Issue("m1")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{info.CertFile, info.KeyFile, info.TrustedCAFile} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("etcd's file %s: %v", filepath.Base(f), err)
		}
	}
	if got, err := handshake(ca.ServerConfig(m0), m1); err != nil || got != "m1" {
		t.Errorf("m1 at m0's proxy: the proxy saw %q, err %v; want m1", got, err)
	}
	other, err := NewCA(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	stranger, _, err := other.Issue("m1")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := handshake(ca.ServerConfig(m0), stranger); err == nil {
		t.Errorf("a certificate of another authority passed as %q", got)
	}
}

// handshake connects a client showing cert to a server configured with
// srv, and returns the common name the server saw.
func handshake(srv *tls.Config, cert tls.Certificate) (string, error) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	cli := tls.Client(a, &tls.Config{Certificates: []tls.Certificate{cert}, InsecureSkipVerify: true}) //nolint:gosec // the server's side is under test
	errc := make(chan error, 1)
	go func() { errc <- cli.Handshake(); a.Close() }()
	s := tls.Server(b, srv)
	err := s.Handshake()
	b.Close()
	<-errc
	if err != nil {
		return "", err
	}
	certs := s.ConnectionState().PeerCertificates
	if len(certs) == 0 {
		return "", nil
	}
	return certs[0].Subject.CommonName, nil
}

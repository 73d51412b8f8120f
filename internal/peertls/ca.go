package peertls

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
)

// CA is a throw-away certificate authority for one cluster's peer TLS.
//
// Keys come from crypto/rand, not from the run's seed: they decide nothing
// about the run, and keys from a seeded source would be predictable.
type CA struct {
	dir    string
	caCert *x509.Certificate
	caKey  *ecdsa.PrivateKey
	caFile string
	pool   *x509.CertPool
	serial int64
}

// NewCA makes a certificate authority whose files go into dir, created if
// need be.
func NewCA(dir string) (*CA, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "etcdsim test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(30 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	p := &CA{dir: dir, caCert: cert, caKey: key, caFile: filepath.Join(dir, "ca.crt"), pool: x509.NewCertPool(), serial: 1}
	p.pool.AddCert(cert)
	if err := writePEM(p.caFile, "CERTIFICATE", der); err != nil {
		return nil, err
	}
	return p, nil
}

// Issue makes a certificate for member name, valid for 127.0.0.1 as a
// server and as a client, and writes it where etcd can read it: the
// TLSInfo names its files, for etcd's peer TLS. It is not safe for
// concurrent use: a cluster issues its members' certificates one by one.
func (p *CA) Issue(name string) (tls.Certificate, transport.TLSInfo, error) {
	var none tls.Certificate
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return none, transport.TLSInfo{}, err
	}
	p.serial++
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(p.serial),
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(30 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:     []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.caCert, &key.PublicKey, p.caKey)
	if err != nil {
		return none, transport.TLSInfo{}, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return none, transport.TLSInfo{}, err
	}
	info := transport.TLSInfo{
		CertFile:       filepath.Join(p.dir, name+".crt"),
		KeyFile:        filepath.Join(p.dir, name+".key"),
		TrustedCAFile:  p.caFile,
		ClientCertAuth: true,
	}
	if err := writePEM(info.CertFile, "CERTIFICATE", der); err != nil {
		return none, transport.TLSInfo{}, err
	}
	if err := writePEM(info.KeyFile, "EC PRIVATE KEY", keyDER); err != nil {
		return none, transport.TLSInfo{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, info, nil
}

// ServerConfig is the TLS configuration of a member's peer proxy: it shows
// the member's certificate and demands one, issued by p, from whoever
// connects.
func (p *CA) ServerConfig(cert tls.Certificate) *tls.Config {
	return &tls.Config{
		Certificates:           []tls.Certificate{cert},
		ClientAuth:             tls.RequireAndVerifyClientCert,
		ClientCAs:              p.pool,
		MinVersion:             tls.VersionTLS12,
		SessionTicketsDisabled: true, // every connection proves its sender afresh
	}
}

func writePEM(path, kind string, der []byte) error {
	b := pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der})
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return fmt.Errorf("peertls: writing %s: %w", path, err)
	}
	return nil
}

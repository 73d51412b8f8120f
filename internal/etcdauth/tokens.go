package etcdauth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// RootUser is the user the harness speaks as when auth is on.
const RootUser = "root"

// RootPassword is root's password. A harness's password protects nothing:
// it is fixed, so a run replays.
const RootPassword = "etcdsim-root"

// BcryptCost is the cost of etcd's password hashes: bcrypt's least. A hash
// costs CPU, not virtual time, at every authentication.
const BcryptCost = 4

// TokenOption is etcd's --auth-token: "simple", or with jwt a signed JWT
// living ttl (0 means 5 minutes) whose ES256 keys it writes into dir,
// unless a previous call wrote them there.
func TokenOption(jwt bool, ttl time.Duration, dir string) (string, error) {
	if !jwt {
		return "simple", nil
	}
	priv, pub := filepath.Join(dir, "jwt.key"), filepath.Join(dir, "jwt.pub")
	if _, err := os.Stat(priv); err != nil {
		if err := writeJWTKeys(dir, priv, pub); err != nil {
			return "", fmt.Errorf("cluster: making the JWT signing key: %w", err)
		}
	}
	if ttl == 0 {
		ttl = 5 * time.Minute
	}
	return fmt.Sprintf("jwt,pub-key=%s,priv-key=%s,sign-method=ES256,ttl=%s", pub, priv, ttl), nil
}

func writeJWTKeys(dir, priv, pub string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(priv, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		return err
	}
	return os.WriteFile(pub, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}), 0o600)
}

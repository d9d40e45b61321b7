// Package testcert makes a self-signed TLS certificate for tests of TLS clients against real
// servers on 127.0.0.1, with crypto/x509 alone (no openssl).
package testcert

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Cert is a self-signed certificate, its own CA, valid for 127.0.0.1, ::1 and localhost for a day.
type Cert struct {
	CertPEM, KeyPEM []byte
	// CAFile is CertPEM written to a file of the test's temporary directory, for --cacert.
	CAFile string
	// TLS is the certificate for a Go server (tls.Config.Certificates).
	TLS tls.Certificate
}

// New makes a Cert (an ECDSA P-256 key) or fails the test.
func New(tb testing.TB) *Cert {
	tb.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(now.UnixNano()),
		Subject:               pkix.Name{CommonName: "iobench test", Organization: []string{"iobench"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		tb.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		tb.Fatal(err)
	}
	c := &Cert{
		CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
		CAFile:  filepath.Join(tb.TempDir(), "ca.pem"),
	}
	if c.TLS, err = tls.X509KeyPair(c.CertPEM, c.KeyPEM); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(c.CAFile, c.CertPEM, 0o644); err != nil {
		tb.Fatal(err)
	}
	return c
}

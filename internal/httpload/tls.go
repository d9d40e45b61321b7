package httpload

import (
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"time"
)

// TLSOptions are a run's choices for an https target.
type TLSOptions struct {
	// Insecure skips the verification of the server's certificate (curl's -k).
	Insecure bool
	// CAFile is a PEM bundle of the certificate authorities to trust instead of the system's.
	CAFile string
	// ServerName is sent as SNI and checked against the certificate; "" means the URL's host.
	ServerName string
}

// Set reports whether any option differs from the defaults.
func (o TLSOptions) Set() bool { return o != TLSOptions{} }

// TLSConfig returns the client configuration of one run against t: SNI and verification for
// o.ServerName or t's host (Go sends no SNI for an IP address but checks the certificate's IP
// SANs), ALPN offering http/1.1 alone, and one session cache that every connection of the run
// shares, so that a redial (after Connection: close, an error, or each request with
// --no-keepalive) resumes the session instead of a full handshake. A CA file that cannot be
// read or holds no PEM certificate is an error naming it.
func TLSConfig(t Target, o TLSOptions) (*tls.Config, error) {
	cfg := &tls.Config{
		ServerName:         cmp.Or(o.ServerName, t.ServerName()),
		InsecureSkipVerify: o.Insecure,
		NextProtos:         []string{"http/1.1"},
		ClientSessionCache: tls.NewLRUClientSessionCache(0),
	}
	if o.CAFile != "" {
		pem, err := os.ReadFile(o.CAFile)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s holds no PEM certificate (-----BEGIN CERTIFICATE-----); give the CA's certificate in PEM", o.CAFile)
		}
		cfg.RootCAs = pool
	}
	return cfg, nil
}

// ALPNH2 is HTTP/2's ALPN protocol identifier (RFC 9113 §3.2).
const ALPNH2 = "h2"

// OfferH2 returns a copy of cfg (TLSConfig's) that offers h2 alone in ALPN, for an HTTP/2 run:
// a server that does not choose it serves the run nothing. The session cache stays shared.
func OfferH2(cfg *tls.Config) *tls.Config {
	cfg = cfg.Clone()
	cfg.NextProtos = []string{ALPNH2}
	return cfg
}

// Setup is what opening a Conn took.
type Setup struct {
	// Connect is the TCP connect, name resolution included when the host is a name.
	Connect time.Duration
	// Handshake is the TLS handshake; 0 without TLS.
	Handshake time.Duration
	// Version and CipherSuite are the handshake's (tls.VersionTLS13, tls.TLS_AES_128_GCM_SHA256),
	// 0 without TLS; Protocol is the ALPN protocol the server chose, "" when it chose none.
	Version, CipherSuite uint16
	Protocol             string
	// Resumed is set when the handshake resumed an earlier session of the run.
	Resumed bool
}

// Setup returns what opening c took.
func (c *Conn) Setup() Setup { return c.setup }

// handshake runs the TLS handshake over c's TCP connection within timeout and makes the TLS
// connection the one requests go over.
func (c *Conn) handshake(ctx context.Context, cfg *tls.Config, timeout time.Duration) error {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	tc := tls.Client(c.raw, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		return err
	}
	st := tc.ConnectionState()
	c.setup.Version, c.setup.CipherSuite, c.setup.Protocol, c.setup.Resumed = st.Version, st.CipherSuite, st.NegotiatedProtocol, st.DidResume
	c.nc = tc
	c.rd.src = tc
	return nil
}

// Untrusted reports whether err is a TLS handshake that failed because the server's certificate
// could not be verified: an unknown authority, an expired certificate or another host's name.
func Untrusted(err error) bool {
	var v *tls.CertificateVerificationError
	return errors.As(err, &v)
}

package httpload

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/testcert"
)

// The unit-level TLS tests run against Go's own TLS servers (net/http's, and tls.Server over the
// raw test server); the test against a real nginx is in internal/httpcmd.

// startTLS starts a net/http TLS server on 127.0.0.1 with cert that answers "Hello world!" and
// counts the requests; it offers h2 and http/1.1 by ALPN, as a real server does.
func startTLS(t *testing.T, cert *testcert.Cert) (Target, *atomic.Int64) {
	t.Helper()
	var requests atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		fmt.Fprint(w, "Hello world!")
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert.TLS}, NextProtos: []string{"h2", "http/1.1"}}
	srv.EnableHTTP2 = true
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the failure tests' handshake errors
	srv.StartTLS()
	t.Cleanup(srv.Close)
	tg, err := ParseURL(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	if !tg.TLS {
		t.Fatalf("ParseURL(%q) is not TLS", srv.URL)
	}
	return tg, &requests
}

func tlsConfigT(t *testing.T, tg Target, o TLSOptions) *tls.Config {
	t.Helper()
	cfg, err := TLSConfig(tg, o)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func dialTLST(t *testing.T, tg Target, cfg *tls.Config) *Conn {
	t.Helper()
	c, err := DialTLS(context.Background(), tg.Addr, cfg, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestDialTLSKeepAlive: requests over one TLS connection with a trusted CA, ALPN settled on
// http/1.1 although the server offers h2, and the setup timed apart.
func TestDialTLSKeepAlive(t *testing.T) {
	cert := testcert.New(t)
	tg, requests := startTLS(t, cert)
	c := dialTLST(t, tg, tlsConfigT(t, tg, TLSOptions{CAFile: cert.CAFile}))
	c.SetKeepBody(true)
	req := RequestSpec{Target: tg}.Build()
	const n = 100
	for i := range n {
		resp, err := c.Do(req, deadline())
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if resp.Status != 200 || string(resp.Body) != "Hello world!" || !resp.KeepAlive {
			t.Fatalf("request %d: %+v body %q", i, resp, resp.Body)
		}
	}
	if got := requests.Load(); got != n {
		t.Errorf("server saw %d requests, want %d", got, n)
	}
	s := c.Setup()
	if s.Version != tls.VersionTLS13 || s.Protocol != "http/1.1" || s.Resumed || s.Connect <= 0 || s.Handshake <= 0 {
		t.Errorf("setup %+v: want TLS 1.3, ALPN http/1.1, a full handshake, both steps timed", s)
	}
}

// TestDialTLSResumes: a second connection of the same configuration resumes the first one's
// session; one of a fresh configuration (another run) does not.
func TestDialTLSResumes(t *testing.T) {
	cert := testcert.New(t)
	tg, _ := startTLS(t, cert)
	cfg := tlsConfigT(t, tg, TLSOptions{CAFile: cert.CAFile})
	req := RequestSpec{Target: tg, Close: true}.Build()
	for i, want := range []bool{false, true, true} {
		c := dialTLST(t, tg, cfg)
		if got := c.Setup().Resumed; got != want {
			t.Errorf("connection %d: resumed %v, want %v", i, got, want)
		}
		// TLS 1.3 tickets come after the handshake: the client takes them in while reading.
		if _, err := c.Do(req, deadline()); err != nil {
			t.Fatal(err)
		}
		c.Close()
	}
	if c := dialTLST(t, tg, tlsConfigT(t, tg, TLSOptions{CAFile: cert.CAFile})); c.Setup().Resumed {
		t.Error("a new configuration resumed another's session")
	}
}

// TestDialTLSFailures: each way a handshake fails is a Connect error, and the untrusted ones say
// so through Untrusted.
func TestDialTLSFailures(t *testing.T) {
	cert := testcert.New(t)
	tg, _ := startTLS(t, cert)
	silent := startRaw(t, func(c net.Conn) { io.Copy(io.Discard, c) }) // accepts, never answers
	plain := startRaw(t, func(c net.Conn) { c.Write([]byte("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")) })
	tests := []struct {
		name      string
		addr      string
		o         TLSOptions
		untrusted bool
		timeout   time.Duration
	}{
		// The first verification without a CA file loads the system's roots: seconds under -race.
		{"unknown authority", tg.Addr, TLSOptions{}, true, 10 * time.Second},
		{"another host's name", tg.Addr, TLSOptions{CAFile: cert.CAFile, ServerName: "example.com"}, true, 10 * time.Second},
		{"handshake timeout", silent.addr(), TLSOptions{Insecure: true}, false, 200 * time.Millisecond},
		{"not a TLS server", plain.addr(), TLSOptions{Insecure: true}, false, 10 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, err := DialTLS(context.Background(), tt.addr, tlsConfigT(t, tg, tt.o), tt.timeout)
			if err == nil || ClassOf(err) != Connect || Untrusted(err) != tt.untrusted {
				t.Fatalf("DialTLS = %v (class %v, untrusted %v); want a connect error, untrusted %v", err, ClassOf(err), Untrusted(err), tt.untrusted)
			}
			if d := time.Since(start); d > tt.timeout+2*time.Second {
				t.Errorf("failed after %v, want within the timeout (%v)", d, tt.timeout)
			}
		})
	}
	t.Run("insecure", func(t *testing.T) {
		c := dialTLST(t, tg, tlsConfigT(t, tg, TLSOptions{Insecure: true}))
		if _, err := c.Do(RequestSpec{Target: tg}.Build(), deadline()); err != nil {
			t.Fatal(err)
		}
	})
}

func TestTLSConfigCAFile(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "notpem")
	if err := os.WriteFile(notPEM, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{filepath.Join(dir, "missing.pem"): "no such file", notPEM: "holds no PEM certificate"} {
		_, err := TLSConfig(Target{Addr: "h:443"}, TLSOptions{CAFile: file})
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), file) {
			t.Errorf("TLSConfig(CAFile %s) = %v, want an error naming it and %q", file, err, want)
		}
	}
	cert := testcert.New(t)
	cfg, err := TLSConfig(Target{Addr: "127.0.0.1:8443"}, TLSOptions{CAFile: cert.CAFile})
	if err != nil {
		t.Fatal(err)
	}
	leaf, _ := x509.ParseCertificate(cert.TLS.Certificate[0])
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: cfg.RootCAs, DNSName: cfg.ServerName}); err != nil {
		t.Errorf("the CA file's pool does not verify its certificate for %s: %v", cfg.ServerName, err)
	}
	if cfg.ClientSessionCache == nil || len(cfg.NextProtos) != 1 || cfg.NextProtos[0] != "http/1.1" {
		t.Errorf("config %+v: want a session cache and ALPN http/1.1 alone", cfg)
	}
}

// tlsRaw starts the raw test server over TLS: each connection's handshake, then handle.
func tlsRaw(tb testing.TB, cert *testcert.Cert, handle func(net.Conn)) *rawServer {
	cfg := &tls.Config{Certificates: []tls.Certificate{cert.TLS}}
	return startRaw(tb, func(c net.Conn) { handle(tls.Server(c, cfg)) })
}

// TestAbortTLS: Abort ends a Do blocked on a TLS connection at once, as on a plain one.
func TestAbortTLS(t *testing.T) {
	cert := testcert.New(t)
	checkAbort(t, func(handle func(net.Conn)) *Conn {
		tg := Target{Addr: tlsRaw(t, cert, handle).addr(), Host: "127.0.0.1", RequestURI: "/", TLS: true}
		return dialTLST(t, tg, tlsConfigT(t, tg, TLSOptions{CAFile: cert.CAFile}))
	})
}

// TestDoAllocsTLS bounds what a steady Do costs in allocations over TLS (keep-alive), the
// server's side included, as TestDoAllocs does over plain TCP. Our code allocates nothing; Go's
// crypto/tls allocates once per record it reads (readFromUntil's atLeastReader escapes, 32
// bytes), so one request and its response cost one allocation on each side. The test against
// nginx (internal/httpcmd) measures the client alone.
func TestDoAllocsTLS(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	cert := testcert.New(t)
	srv := tlsRaw(t, cert, respondAlways(timingResponse))
	tg := Target{Addr: srv.addr(), Host: "127.0.0.1", RequestURI: "/", TLS: true}
	c := dialTLST(t, tg, tlsConfigT(t, tg, TLSOptions{CAFile: cert.CAFile}))
	var failed error
	do := func() {
		if _, err := c.Do(getReq, time.Now().Add(time.Second)); err != nil {
			failed = err
		}
	}
	do()
	n := testing.AllocsPerRun(1000, do)
	t.Logf("Do over TLS: %v allocations per call, client and server together", n)
	if n > 2 {
		t.Errorf("Do over TLS allocates %v times per call (client and server), want at most 2: one per record read on each side, in crypto/tls", n)
	}
	if failed != nil {
		t.Fatal(failed)
	}
}

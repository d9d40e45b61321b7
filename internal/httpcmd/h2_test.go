package httpcmd_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/service"
	"github.com/iobench/iobench/internal/testcert"
)

// runNginx starts site on a free port of 127.0.0.1 with one worker answering "Hello world!",
// its access log on, until the test ends.
func runNginx(t *testing.T, site service.NginxSite) *service.Instance {
	t.Helper()
	if err := service.Installed("nginx"); err != nil {
		t.Fatal(err) // scripts/install-services.sh installs it
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	site.Port = ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	site.Answer, site.Workers, site.AccessLog = "Hello world!", 1, true
	ctx := context.Background()
	inst, err := service.StartNginx(ctx, site, service.Options{StateDir: sharedDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inst.Stop(ctx) })
	return inst
}

// accessLogged counts the lines of nginx's access log that are an iobench GET answered 200 over
// proto ("HTTP/1.1", "HTTP/2.0") and all its lines, waiting up to 2 s for want lines.
func accessLogged(t *testing.T, log, proto string, want int) (ok, all int) {
	t.Helper()
	for end := time.Now().Add(2 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		b, err := os.ReadFile(log)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(b) == 0 {
			lines = nil
		}
		ok = 0
		for _, l := range lines {
			if strings.Contains(l, `"GET / `+proto+`" 200 12 `) && strings.HasSuffix(l, `"iobench"`) {
				ok++
			}
		}
		if len(lines) >= want || time.Now().After(end) {
			return ok, len(lines)
		}
	}
}

// TestCountsAgainstNginx loads a real nginx pipelined 16 deep, over h2c with 50 streams per
// connection and over h2 (TLS, ALPN) with 50 streams: every request iobench counts is one line
// of nginx's access log, and no more.
func TestCountsAgainstNginx(t *testing.T) {
	for _, tc := range []struct {
		name       string
		http2, tls bool
		args       []string
		proto      string
	}{
		{"pipelined 16 deep", false, false, []string{"--pipeline", "16"}, "HTTP/1.1"},
		{"h2c 50 streams", true, false, []string{"--http2-prior-knowledge", "--streams", "50"}, "HTTP/2.0"},
		{"h2 50 streams", true, true, []string{"--http2", "--streams", "50"}, "HTTP/2.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			site, args := service.NginxSite{HTTP2: tc.http2}, tc.args
			if tc.tls {
				cert := testcert.New(t)
				site.TLS = &service.NginxTLS{CertPEM: cert.CertPEM, KeyPEM: cert.KeyPEM}
				args = append(args, "--cacert", cert.CAFile)
			}
			inst := runNginx(t, site)
			log := filepath.Join(inst.Dir, service.NginxAccessLog)
			const requests = 5003
			rec, stdout := runRecord(t, append([]string{"-t1", "-c3", "-n", "5003"}, append(args, inst.URL+"/")...)...)
			ok, all := accessLogged(t, log, tc.proto, requests)
			if rec.Counts.Succeeded != requests || rec.Counts.Failed != 0 || ok != requests || all != requests {
				t.Fatalf("iobench counted %d succeeded, %d failed; nginx logged %d lines, %d of them iobench's %s GETs answered 200; want %d each",
					rec.Counts.Succeeded, rec.Counts.Failed, all, ok, tc.proto, requests)
			}
			if tc.tls {
				checkH2OverTLS(t, rec, stdout)
			}
		})
	}
}

// checkH2OverTLS checks that an h2 run's record and text block say it negotiated h2: the tls
// section's ALPN protocol, the http2 section, the case that keeps it apart from other runs.
func checkH2OverTLS(t *testing.T, rec *result.Record, stdout string) {
	t.Helper()
	if rec.TLS == nil || rec.TLS.Protocol != "h2" || rec.TLS.Handshakes != 3 {
		t.Errorf("tls section %+v; want ALPN h2, one handshake per connection (3)", rec.TLS)
	}
	if h := rec.HTTP2; h == nil || h.Protocol != "h2" || h.Streams != 50 || h.FramesReceived["settings"] < 3 || rec.Case != "h2 streams 50" {
		t.Errorf("http2 section %+v, case %q; want protocol h2, 50 streams, the server's SETTINGS on each connection, case \"h2 streams 50\"", rec.HTTP2, rec.Case)
	}
	for _, want := range []string{"h2 with 50 streams each", "TLS 1.3 TLS_AES_128_GCM_SHA256 h2: 3 handshakes"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("text block lacks %q:\n%s", want, stdout)
		}
	}
}

// TestHTTP2BadInput gives the HTTP/2 flags a URL of the other scheme, or a TLS server that does
// not speak h2: each exits 2 with one line saying what to do, before any load.
func TestHTTP2BadInput(t *testing.T) {
	n := startTLSNginx(t) // HTTP/1.1 alone in ALPN
	httpURL := strings.Replace(n.url, "https://", "http://", 1)
	for _, tt := range []struct {
		name string
		args []string
		want []string
	}{
		{"--http2 on http", []string{"--http2", httpURL}, []string{"https://", "--http2-prior-knowledge"}},
		{"prior knowledge on https", []string{"--http2-prior-knowledge", "--insecure", n.url}, []string{"http://", "--http2"}},
		{"h2 refused in ALPN", []string{"--http2", "--cacert", n.cert.CAFile, n.url}, []string{"does not speak HTTP/2", `chose "http/1.1"`, "drop --http2"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runHTTP(append([]string{"-c1", "-n", "10"}, tt.args...)...)
			if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
				t.Errorf("exit %d, stderr %q; want exit 2 and one line", code, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
		})
	}
	if ok, all := n.logged(t, 0); all != 0 {
		t.Errorf("nginx logged %d requests (%d answered 200); want no load sent", all, ok)
	}
}

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

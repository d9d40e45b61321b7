package engine

import (
	"context"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/httpload"
	"github.com/iobench/iobench/internal/testcert"
)

// TestTLSHandshakesApart runs an https closed loop on Go's TLS server (the test against nginx
// is in internal/httpcmd): the handshakes are counted and timed apart, one per connection with
// keep-alive, one per request without and then resumed; with a certificate the run does not
// trust, every attempt is a connect error and nothing is opened.
func TestTLSHandshakesApart(t *testing.T) {
	cert := testcert.New(t)
	srv := startCounting(t, hello, &cert.TLS)
	tests := []struct {
		name            string
		keepAlive       bool
		ca              string
		wantHandshakes  func(n int64, c int) int64
		wantConnectErrs bool
	}{
		{"keep-alive", true, cert.CAFile, func(_ int64, c int) int64 { return int64(c) }, false},
		{"no keep-alive", false, cert.CAFile, func(n int64, _ int) int64 { return n }, false},
		{"untrusted", true, testcert.New(t).CAFile, func(int64, int) int64 { return 0 }, true}, // another CA
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config(t, EngineLoop, srv.URL) // asked for the loop: https falls back, with a note
			cfg.Connections, cfg.Threads, cfg.KeepAlive = 3, 1, tt.keepAlive
			cfg.Request = httpload.RequestSpec{Target: cfg.Target, Close: !tt.keepAlive}.Build()
			var err error
			if cfg.TLS, err = httpload.TLSConfig(cfg.Target, httpload.TLSOptions{CAFile: tt.ca}); err != nil {
				t.Fatal(err)
			}
			if tt.wantConnectErrs {
				cfg.Duration, cfg.ConnectWait = 300*time.Millisecond, 10*time.Millisecond
			} else {
				cfg.Requests = 150
			}
			res, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if res.Engine != EngineGoroutine || res.EngineNote == "" {
				t.Errorf("engine %q, note %q: want the goroutine engine, saying why", res.Engine, res.EngineNote)
			}
			tl := res.TLS
			if want := tt.wantHandshakes(150, cfg.Connections); tl == nil || tl.Handshakes != want || tl.Handshake.Count() != want || tl.Connect.Count() != want {
				t.Fatalf("tls %+v; want %d handshakes, each timed", tl, want)
			}
			if tt.wantConnectErrs {
				if res.Succeeded != 0 || res.Errors[ErrConnect] == 0 || len(res.Errors) != 1 {
					t.Errorf("succeeded %d, errors %v; want connect errors only", res.Succeeded, res.Errors)
				}
				return
			}
			if res.Succeeded != 150 || len(res.Errors) != 0 || res.Latency.Count() != 150 {
				t.Errorf("succeeded %d, errors %v, latencies %d; want 150 successes", res.Succeeded, res.Errors, res.Latency.Count())
			}
			if !tt.keepAlive && tl.Resumed == 0 {
				t.Errorf("none of %d handshakes resumed; want redials to resume", tl.Handshakes)
			}
		})
	}
}

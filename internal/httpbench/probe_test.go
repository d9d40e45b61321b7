package httpbench

import (
	"context"
	"crypto/tls"
	"strings"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/httpload"
	"github.com/iobench/iobench/internal/testcert"
)

// TestProbeH2 probes TLS servers for an HTTP/2 run: one that chooses h2 passes, one that chooses
// http/1.1 is named so, and one that serves neither (it answers no_application_protocol) too.
func TestProbeH2(t *testing.T) {
	cert := testcert.New(t)
	for _, tc := range []struct {
		serves []string
		want   string // in the error; "" for none
	}{
		{[]string{"h2", "http/1.1"}, ""},
		{[]string{"http/1.1"}, `it chose "http/1.1"`},
		{[]string{"spdy/3"}, "refused h2 and http/1.1 in ALPN"},
	} {
		ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert.TLS}, NextProtos: tc.serves})
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				c.(*tls.Conn).Handshake()
				c.Close()
			}
		}()
		target, err := httpload.ParseURL("https://" + ln.Addr().String() + "/")
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := Options{URL: target.URL(), HTTP2: true, TLS: httpload.TLSOptions{CAFile: cert.CAFile}}.tlsConfig(target)
		if err != nil {
			t.Fatal(err)
		}
		err = Probe(context.Background(), target, cfg, 2*time.Second)
		ln.Close()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("server offering %v: probe said %v; want %q", tc.serves, err, tc.want)
		}
	}
}

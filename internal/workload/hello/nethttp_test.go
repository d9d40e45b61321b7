package hello

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// TestServeNetHTTP checks that the net/http server answers what Serve answers, keeps a
// connection for several requests and returns nil once cancelled.
func TestServeNetHTTP(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ServeNetHTTP(ctx, ln) }()
	base := "http://" + ln.Addr().String()
	tr := &http.Transport{MaxIdleConnsPerHost: 1}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	cases := []struct {
		method, path string
		status       int
		body         string
	}{
		{"GET", "/", 200, "Hello world!"},
		{"HEAD", "/", 200, ""},
		{"GET", "/nope", 404, "not found: iobench hello serves only GET /\n"},
		{"POST", "/", 405, "method not allowed: use GET or HEAD\n"},
		{"GET", "/", 200, "Hello world!"},
	}
	for _, tc := range cases {
		req, _ := http.NewRequest(tc.method, base+tc.path, nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || string(b) != tc.body || resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
			t.Errorf("%s %s: %d %q %v", tc.method, tc.path, resp.StatusCode, b, resp.Header)
		}
		if tc.status == 200 && (resp.ContentLength != 12 || resp.Header.Get("Date") == "" || resp.Close) {
			t.Errorf("%s %s: length %d, close %v, headers %v", tc.method, tc.path, resp.ContentLength, resp.Close, resp.Header)
		}
		if tc.status == 405 && !strings.Contains(resp.Header.Get("Allow"), "GET") {
			t.Errorf("405 without Allow: %v", resp.Header)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("ServeNetHTTP returned %v after cancel, want nil", err)
	}
}

// TestServeHTTP2 checks that one port answers HTTP/1.1 and HTTP/2 with prior knowledge (h2c),
// each with the hello body, told apart by the connection preface.
func TestServeHTTP2(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ServeHTTP2(ctx, ln) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeHTTP2 returned %v, want nil", err)
		}
	}()
	for _, tc := range []struct {
		name  string
		proto func(*http.Protocols)
		major int
	}{
		{"HTTP/1.1", func(p *http.Protocols) { p.SetHTTP1(true) }, 1},
		{"h2c", func(p *http.Protocols) { p.SetUnencryptedHTTP2(true) }, 2},
	} {
		tr := &http.Transport{Protocols: new(http.Protocols)}
		tc.proto(tr.Protocols)
		resp, err := (&http.Client{Transport: tr}).Get("http://" + ln.Addr().String() + "/")
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		tr.CloseIdleConnections()
		if resp.ProtoMajor != tc.major || resp.StatusCode != 200 || string(body) != Body {
			t.Errorf("%s: %s %d %q; want HTTP/%d 200 %q", tc.name, resp.Proto, resp.StatusCode, body, tc.major, Body)
		}
	}
}

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/impl/impltest"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/sut"
	"github.com/iobench/iobench/internal/workload/hello"
)

// TestHelloImpls runs every impl of the hello workload in impls/, as a user would: `iobench
// verify NAME` must pass (each variant ok, or its expected seed flaws reproduced and nothing
// else; an h2c variant's GET / over h2c too), then each variant is started and loaded for a
// second with `iobench http`, every response checked (status 200, body exactly "Hello world!";
// an h2c variant over h2c with 4 streams a connection, its status alone). A variant without expected
// findings must answer every request right; a variant whose expected findings explain errors
// under load (content-length-mismatch: length; connection-limit: connect, read, write) must show
// such errors and no other. A variant that expects connection-limit is loaded with the seed's
// 100 connections, the others with 4. An impl is skipped only when the machine lacks one of its
// prerequisites (the skip says which and how to install it); install-services.sh
// --with-test-tools installs them all but Node, which iobench never installs.
func TestHelloImpls(t *testing.T) {
	entries, err := impl.List(os.Getenv(env.ImplsDir))
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir() // one state directory: each impl is installed once
	n := 0
	for _, e := range entries {
		if e.Err != nil {
			t.Errorf("%s: %v", e.Dir, e.Err)
			continue
		}
		if _, ok := e.Manifest.Workloads[hello.Name]; !ok {
			continue
		}
		n++
		m := e.Manifest
		t.Run(m.Name, func(t *testing.T) {
			inst := impltest.InstallOrSkip(t, m, state)
			code, stdout, stderr := runCLI("verify", m.Name, "--state-dir", state)
			checkVerify(t, m, code, stdout, stderr)
			for _, v := range m.Variants {
				t.Run(v.Name, func(t *testing.T) { loadVariant(t, inst, v, state) })
			}
		})
	}
	if n < 6 {
		t.Errorf("%d impls of the hello workload found; want at least go, node, php (2) and python (2)", n)
	}
}

// checkVerify checks verify's exit code and its line for every variant.
func checkVerify(t *testing.T, m *impl.Manifest, code int, stdout, stderr string) {
	t.Helper()
	if code != 0 || strings.Contains(stdout, "FAIL") {
		t.Fatalf("verify %s: exit %d\nstdout %s\nstderr %s", m.Name, code, stdout, stderr)
	}
	for _, v := range m.Variants {
		want := []string{"ok   hello " + v.Name + ": "}
		if hello.ProtocolOf(m, v.Name) == hello.ProtocolH2C {
			want = []string{"ok   hello " + v.Name + ": 1 route(s) answer as docs/IMPLS.md, \"The HTTP routes\", says; GET / over h2c answers too"}
		}
		if len(v.Expect) > 0 {
			want = nil
			for _, id := range v.Expect {
				want = append(want, fmt.Sprintf("flaw hello %s: seed flaw reproduced: %s: ", v.Name, id))
			}
		}
		for _, w := range want {
			if !strings.Contains(stdout, w) {
				t.Errorf("verify %s: output lacks %q:\n%s", m.Name, w, stdout)
			}
		}
	}
}

// loadVariant starts variant v and loads GET / for a second.
func loadVariant(t *testing.T, inst *impl.Installation, v impl.Variant, state string) {
	addr, err := sut.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	p, err := inst.Start(ctx, impl.StartOptions{Variant: v.Name, Env: map[string]string{env.Listen: addr}, StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	connections := 4
	if v.Expects("connection-limit") {
		connections = 100 // the seed's load, beyond the 30 connections per IP
	}
	out := filepath.Join(t.TempDir(), "r.json")
	check := []string{"--expect-body", "^" + hello.Body + "$"}
	if hello.ProtocolOf(inst.Manifest, v.Name) == hello.ProtocolH2C {
		check = append(check, "--http2-prior-knowledge", "--streams", "4")
	}
	args := append([]string{"http", "-t1", "-c", strconv.Itoa(connections), "-d1s", "--timeout", "2s", "--quiet",
		"--expect-status", "200", "--json", out}, check...)
	code, stdout, stderr := runCLI(append(args, "http://"+addr+"/")...)
	rec, err := result.Load(out)
	if err != nil {
		t.Fatalf("iobench http: exit %d, no record (%v)\nstdout %s\nstderr %s", code, err, stdout, stderr)
	}
	select {
	case <-p.Done():
		t.Fatalf("the impl exited under load: %s; log %s", p.Tail(), p.LogPath())
	default:
	}
	c := rec.Counts
	explained := false // the variant's findings explain errors under load
	for _, id := range v.Expect {
		explained = explained || len(impl.Findings[id].Errors) > 0
	}
	switch {
	case !explained && (c.Failed > 0 || c.Succeeded == 0):
		t.Fatalf("%d right, %d wrong (errors %v) in %d requests; want every one right\n%s", c.Succeeded, c.Failed, c.Errors, c.Attempted, stdout)
	case explained && !impl.Explains(v.Expect, c.Errors):
		t.Fatalf("errors %v in %d requests: want errors of %v only, the variant's expected findings\n%s", c.Errors, c.Attempted, v.Expect, stdout)
	}
	t.Logf("%s:%s, %d connections: %.0f req/s, %d right, errors %v", inst.Manifest.Name, v.Name, connections, rec.Throughput.Mean, c.Succeeded, c.Errors)
}

// http2Suite runs the hello workload on both HTTP/2 variants (over h2c, 8 streams on each of 2
// connections) beside go-hello's net/http over HTTP/1.1, with the scenario's streams.
const http2Suite = `name: h2
workload: hello
impls: [go-hello:net-http, go-hello:http2, node-hello:http2]
params:
  load: closed
  connections: 2
  threads: 1
  streams: 8
repeats: 1
warmup: 200ms
duration: 1s
`

// TestHelloHTTP2Run runs node-hello:http2 and go-hello:http2 under the hello workload with
// `iobench run`: each is loaded over h2c, every request it was sent is counted as answered
// right, and its record says the protocol (case, protocol and streams) so that compare never
// pools it with the HTTP/1.1 run beside it, whose record says nothing of streams.
func TestHelloHTTP2Run(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node not on PATH: iobench never installs Node; install Node.js 18 or later with npm")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "h2.yaml")
	if err := os.WriteFile(path, []byte(http2Suite), 0o644); err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(dir, "results")
	code, stdout, stderr := runCLI("run", "--quiet", "--results", results, "--state-dir", filepath.Join(dir, "state"), path)
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	paths, _ := filepath.Glob(filepath.Join(results, "*", "*.json"))
	seen := map[string]bool{}
	for _, p := range paths {
		rec, err := result.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		ref := rec.Impl + ":" + rec.Variant
		seen[ref] = true
		checkHTTP2Record(t, ref, rec, rec.Variant == hello.VariantHTTP2)
	}
	if len(seen) != 3 {
		t.Fatalf("records of %v, want go-hello:net-http, go-hello:http2 and node-hello:http2\n%s", seen, stdout)
	}
}

// checkHTTP2Record checks one record of http2Suite: every request answered right, and the
// protocol in its case and parameters (h2c and 8 streams), or none of it for HTTP/1.1.
func checkHTTP2Record(t *testing.T, ref string, rec *result.Record, h2c bool) {
	t.Helper()
	c := rec.Counts
	if c.Attempted == 0 || c.Succeeded != c.Attempted || c.Failed != 0 || c.Lost != 0 {
		t.Errorf("%s: counts %+v, want every request answered right", ref, c)
	}
	proto, streams := rec.Parameters["protocol"], rec.Parameters["streams"]
	switch {
	case h2c && (rec.Case != "h2c streams 8" || proto != "h2c" || streams != float64(8)):
		t.Errorf("%s: case %q, protocol %v, streams %v; want h2c streams 8", ref, rec.Case, proto, streams)
	case !h2c && (rec.Case != "" || proto != nil || streams != nil):
		t.Errorf("%s: case %q, protocol %v, streams %v; want HTTP/1.1's none", ref, rec.Case, proto, streams)
	}
}

// TestHelloHTTP2NoKeepAlive: keepalive: false cannot load a variant that speaks HTTP/2, and the
// failed run says why in one line.
func TestHelloHTTP2NoKeepAlive(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "h2.yaml")
	suite := strings.Replace(strings.Replace(http2Suite, "go-hello:net-http, go-hello:http2, node-hello:http2", "go-hello:http2", 1),
		"streams: 8", "keepalive: false", 1)
	if err := os.WriteFile(path, []byte(suite), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI("run", "--quiet", "--results", filepath.Join(dir, "results"), "--state-dir", filepath.Join(dir, "state"), path)
	want := "keepalive: false with go-hello:http2, which speaks HTTP/2 (h2c)"
	if code != 1 || !strings.Contains(stdout+stderr, want) {
		t.Fatalf("exit %d, want 1 and %q\nstdout %s\nstderr %s", code, want, stdout, stderr)
	}
}

package main

import (
	"context"
	"fmt"
	"os"
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
// else), then each variant is started and loaded for a second with `iobench http`, every
// response checked (status 200, body exactly "Hello world!"). A variant without expected
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
	code, stdout, stderr := runCLI("http", "-t1", "-c", strconv.Itoa(connections), "-d1s", "--timeout", "2s", "--quiet",
		"--expect-status", "200", "--expect-body", "^"+hello.Body+"$", "--json", out, "http://"+addr+"/")
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

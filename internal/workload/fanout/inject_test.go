package fanout

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/fail"
	"github.com/iobench/iobench/internal/inject"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/suite"
	"github.com/iobench/iobench/internal/workload/workloadtest"
)

// TestInjectUpstreamURL: the impl's upstream URL points at the relay; other services are refused.
func TestInjectUpstreamURL(t *testing.T) {
	exe, _ := os.Executable()
	vars := map[string]string{env.UpstreamURL: "http://127.0.0.1:1/"}
	r := scenario.Run{Params: map[string]any{inject.Param: "upstream:latency=1ms"}}
	set, err := startProxies(context.Background(), r, "go-fanout", exe, vars)
	if err != nil {
		t.Fatal(err)
	}
	defer set.Stop()
	if want := "http://" + set[0].Addr + "/"; len(set) != 1 || vars[env.UpstreamURL] != want {
		t.Errorf("the impl gets %q, want %q", vars[env.UpstreamURL], want)
	}
	r.Params[inject.Param] = "postgres:latency=1ms"
	if _, err := startProxies(context.Background(), r, "go-fanout", exe, vars); !errors.Is(err, fail.ErrBadInput) || !strings.Contains(err.Error(), "does not use postgres") {
		t.Errorf("postgres injected into a fanout run: %v", err)
	}
}

// TestInjectRun: go-fanout's /sync through a 1 ms relay makes one turn per upstream call, the
// upstream's count still exact (how many connections the impl's client keeps is its own affair).
func TestInjectRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.json")
	code, _, stderr := workloadtest.Run("fanout", "--impl", "go-fanout", "--impls-dir", implsRoot, "--route", "/sync",
		"-c", "4", "-n", "100", "--warmup", "200ms", "--inject", "upstream:latency=1ms", "--json", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rec, err := result.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	e := inject.SectionOf(rec)["upstream"]
	if e == nil || !Section(rec).CallsVerified {
		t.Fatalf("inject %+v, fanout %+v", e, Section(rec))
	}
	if e.TurnsPerOp < 0.95 || e.TurnsPerOp > 1.05 || e.Connections < 1 || e.AddedUSPerTurn < 1000 {
		t.Errorf("inject.upstream %+v: want one turn per call through the relay, at least 1000 µs added", *e)
	}
}

// TestInjectParam: a scenario's inject: param is read, and a bad one refused at its line.
func TestInjectParam(t *testing.T) {
	known, err := suite.Known(implsRoot)
	if err != nil {
		t.Fatal(err)
	}
	doc := func(v string) []byte {
		return []byte("name: f\nworkload: fanout\nimpls: [go-fanout]\nparams: {route: /sync, inject: \"" + v + "\"}\n")
	}
	s, err := scenario.Parse("ok.yaml", doc("upstream:latency=2ms,jitter=100us"), known)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Runs[0].Params[inject.Param].(string); got != "upstream:latency=2ms,jitter=100us" {
		t.Errorf("inject param %q", got)
	}
	if _, err := scenario.Parse("bad.yaml", doc("upstream:latency=-2ms"), known); err == nil || !strings.Contains(err.Error(), "bad.yaml:4") || !strings.Contains(err.Error(), "negative") {
		t.Errorf("a negative latency in a scenario: %v", err)
	}
}

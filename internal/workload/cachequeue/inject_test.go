package cachequeue

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/inject"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/workload/workloadtest"
)

// TestInjectBadInput: a store the route does not change, an unknown service and a bad value are
// one line and exit 2, before anything starts.
func TestInjectBadInput(t *testing.T) {
	for spec, want := range map[string]string{
		"memcached:latency=1ms": "this run does not use memcached (it uses redis as its store)",
		"mysql:latency=1ms":     `unknown service "mysql"`,
		"redis:latency=-1ms":    "negative",
	} {
		code, _, stderr := workloadtest.Run(Name, "--impl", "go-cachequeue", "--route", "/cache/redis", "--inject", spec,
			"--impls-dir", "../../../impls", "--state-dir", implState)
		if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, want) {
			t.Errorf("--inject %s: exit %d, stderr %q; want exit 2 and one line containing %q", spec, code, stderr, want)
		}
	}
	code, _, stderr := workloadtest.Run(Name, "--impl", "go-cachequeue", "--route", "/cache/fake", "--inject", "redis:latency=1ms",
		"--impls-dir", "../../../impls", "--state-dir", implState)
	if code != 2 || !strings.Contains(stderr, "no service the relay can delay") {
		t.Errorf("redis injected into /cache/fake: exit %d, stderr %q", code, stderr)
	}
}

// TestInjectStoreAddress: the app's Redis URL points at the relay; its Memcached address and
// the addresses iobench reads the stores with stay direct.
func TestInjectStoreAddress(t *testing.T) {
	a := Addrs{Redis: "redis://127.0.0.1:1", Memcached: "127.0.0.1:2"}
	sutEnv := a.environ()
	r := scenario.Run{Params: map[string]any{inject.Param: "store:latency=1ms"}}
	set, err := startProxies(context.Background(), r, "/cache/redis", target(t, "go-cachequeue", "async"), sutEnv)
	if err != nil {
		t.Fatal(err)
	}
	defer set.Stop()
	if want := "redis://" + set[0].Addr; len(set) != 1 || sutEnv[env.RedisURL] != want {
		t.Errorf("the app gets %q, want %q", sutEnv[env.RedisURL], want)
	}
	if sutEnv[env.MemcachedAddr] != a.Memcached || a.Redis != "redis://127.0.0.1:1" {
		t.Errorf("memcached %q, iobench's Redis %q: want both unchanged", sutEnv[env.MemcachedAddr], a.Redis)
	}
}

// TestInjectPipelined: go-cachequeue async pipelines its INCRs on one connection, so through a
// 2 ms relay a turn carries several requests' commands (fewer turns than requests), the relay
// says it added at least 2 ms per turn, and the store's count, read direct, is still exact.
func TestInjectPipelined(t *testing.T) {
	target(t, "go-cachequeue", "async")
	privateStores(t)
	path := filepath.Join(t.TempDir(), "r.json")
	code, stdout, stderr := workloadtest.Run(Name, "--impl", "go-cachequeue:async", "--route", "/cache/redis", "-c", "8",
		"-d", "700ms", "--warmup", "200ms", "--inject", "redis:latency=2ms", "--quiet", "--json", path,
		"--impls-dir", "../../../impls", "--state-dir", implState)
	if code != 0 || !strings.Contains(stdout, "injected: redis +2ms") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	rec, err := result.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	e, c := inject.SectionOf(rec)["redis"], Section(rec)
	if e == nil || c == nil || !c.Counted {
		t.Fatalf("inject %+v, cachequeue %+v", e, c)
	}
	if e.Turns == 0 || e.TurnsPerOp >= 0.9 || e.AddedUSPerTurn < 2000 {
		t.Errorf("inject.redis %+v over %d responses: want several requests per turn (turns_per_op below 0.9), at least 2000 µs added", *e, c.Answered)
	}
	if rec.Parameters[inject.Param] != "redis:latency=2ms" {
		t.Errorf("parameters %v", rec.Parameters)
	}
}

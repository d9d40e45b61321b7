package cachequeue

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/service"
	"github.com/iobench/iobench/internal/service/servicetest"
	"github.com/iobench/iobench/internal/sut"
	"github.com/iobench/iobench/internal/workload"
	"github.com/iobench/iobench/internal/workload/workloadtest"
)

// TestMain lets the test binary stand in for iobench when go-cachequeue's manifest runs
// `iobench serve cachequeue`: it runs the real command, from the environment the run gives it.
func TestMain(m *testing.M) {
	workloadtest.ServeMain()
	servicetest.MainWithDir(m, &implState)
}

// implState is the state directory of every impl the tests install (TestMain makes it): each
// impl is installed once for the binary, not once per test.
var implState string

// TestCheck covers the count check's verdicts: exact, within the requests that got no answer,
// too few, too many, and a fake route that moved a store.
func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		route                        string
		change, answered, unanswered int64
		ok                           bool
		want                         string
	}{
		{"/cache/redis", 100, 100, 0, true, "100 counted for 100 responses (warm-up included)"},
		{"/queue/zmq", 2040, 2000, 40, true, "40 requests without one"},
		{"/cache/redis", 99, 100, 0, false, "1 fewer than the responses"},
		{"/queue/redis", 105, 100, 2, false, "3 more than were sent"},
		{"/cache/fake", 0, 100, 0, true, "nothing moved"},
		{"/queue/fake", 3, 100, 0, false, "moved the stores by 3"},
	} {
		ok, detail := check(tc.route, tc.change, tc.answered, tc.unanswered)
		if ok != tc.ok || !strings.Contains(detail, tc.want) {
			t.Errorf("check(%s, %d, %d, %d) = %v %q; want %v and %q", tc.route, tc.change, tc.answered, tc.unanswered, ok, detail, tc.ok, tc.want)
		}
	}
}

// TestPHPAppCountedInStore drives every route of impls/php/cachequeue through nginx, PHP-FPM and
// the real Redis, Memcached and ZeroMQ with bounded load: each store's change must equal what
// iobench saw, the fake routes move nothing, and /queue/zmq without a consumer still counts
// every message once iobench drains the endpoint.
func TestPHPAppCountedInStore(t *testing.T) {
	driveRoutes(t, target(t, "php-cachequeue", ""), Routes)
}

// TestGoImplCountedInStore drives go-cachequeue's sync and async variants over their routes
// (ZeroMQ aside: zmq4 has no send queue, so with no PULL peer each push waits 5 s).
func TestGoImplCountedInStore(t *testing.T) {
	routes := []string{"/cache/fake", "/cache/memcached", "/cache/redis", "/queue/fake", "/queue/redis"}
	for _, v := range []string{"sync", "async"} {
		for _, e := range engine.Engines { // the store's count must match with either engine
			t.Run(v+"/"+e, func(t *testing.T) { driveRoutesWith(t, target(t, "go-cachequeue", v), routes, e) })
		}
	}
}

// driveRoutes loads each route briefly on a Redis and a Memcached of the test's own.
func driveRoutes(t *testing.T, target workload.Target, routes []string) {
	driveRoutesWith(t, target, routes, "")
}

// driveRoutesWith is driveRoutes with the generator's engine ("" for the default). Half a second
// after the warm-up is hundreds of requests on the slowest route (PHP's /queue/zmq, some 500
// req/s on a busy machine) and thousands on most: each must be counted in its store, the ones
// in flight when the load stops included.
func driveRoutesWith(t *testing.T, target workload.Target, routes []string, eng string) {
	privateStores(t)
	for _, route := range routes {
		t.Run(strings.ReplaceAll(route[1:], "/", "-"), func(t *testing.T) {
			rec, err := RunOne(t.Context(), target, Options{Route: route, Connections: 4, Duration: 500 * time.Millisecond,
				Warmup: 300 * time.Millisecond, Timeout: 2 * time.Second, Engine: eng})
			if err != nil {
				t.Fatal(err)
			}
			c := Section(rec)
			if c == nil || !c.Counted || c.Answered == 0 {
				t.Fatalf("section %+v", c)
			}
			if eng != "" && rec.Parameters["engine"] != eng {
				t.Fatalf("engine %v ran, want %s", rec.Parameters["engine"], eng)
			}
			t.Logf("%s: %.0f req/s; %s", route, rec.Throughput.Mean, c.Detail)
			if target.Inst.Manifest.Start.PHPFPM == nil {
				return
			}
			var nginx bool
			for _, p := range rec.Processes {
				nginx = nginx || (p.Role == "service" && p.Name == "nginx" && p.Workers > 0)
			}
			if !nginx {
				t.Errorf("no nginx service process with its workers in %+v", rec.Processes)
			}
		})
	}
}

// privateStores starts a Redis and a Memcached of the test's own and gives them to its runs
// (IOBENCH_REDIS_URL, IOBENCH_MEMCACHED_ADDR): the seed's keys are fixed, and a store shared
// with other runs would move under a fake route. It returns the Redis URL.
func privateStores(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"redis", "memcached"} {
		inst, err := service.Start(t.Context(), name, service.Options{StateDir: openTempDir(t)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { inst.Stop(context.Background()) })
		t.Setenv(service.EnvName(name), inst.EnvValue())
	}
	return os.Getenv(service.EnvName("redis"))
}

// openTempDir is t.TempDir opened to the users the stores run as (and nginx's), its parent too.
func openTempDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o711); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestPythonAppCountedInStore and TestNodeAppCountedInStore drive every route the Python and
// Node apps declare (the seed's, less the PHP-only Predis routes) as the PHP app's test does, and
// check that the Predis routes, an unknown driver and an unknown path answer 404 in one line.
func TestPythonAppCountedInStore(t *testing.T) { testAppCountedInStore(t, "python-cachequeue") }
func TestNodeAppCountedInStore(t *testing.T)   { testAppCountedInStore(t, "node-cachequeue") }

func testAppCountedInStore(t *testing.T, name string) {
	target := target(t, name, "")
	routes := target.Inst.Manifest.Routes(Name)
	for _, want := range []string{"/cache/fake", "/cache/memcached", "/cache/redis", "/queue/fake", "/queue/zmq", "/queue/redis"} {
		if !slices.Contains(routes, want) {
			t.Errorf("%s does not declare %s: %v", name, want, routes)
		}
	}
	driveRoutes(t, target, routes)
	t.Run("undeclared-route", func(t *testing.T) {
		_, err := RunOne(t.Context(), target, Options{Route: "/cache/predis", Connections: 1, Duration: time.Second, Timeout: time.Second})
		if err == nil || !strings.Contains(err.Error(), name+" does not serve it") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("predis-404", func(t *testing.T) {
		addr, err := sut.FreeAddr()
		if err != nil {
			t.Fatal(err)
		}
		p, err := target.Inst.Start(t.Context(), impl.StartOptions{Variant: target.Variant.Name, Env: map[string]string{env.Listen: addr}})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Stop()
		for _, path := range []string{"/cache/predis", "/queue/predis", "/cache/mysql", "/nope"} {
			resp, err := http.Get("http://" + addr + path)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound || strings.Count(string(body), "\n") != 1 || !strings.HasSuffix(string(body), "\n") {
				t.Errorf("GET %s: %d %q; want 404 with a one-line body", path, resp.StatusCode, body)
			}
		}
	})
}

// TestBadRoute: an unknown route is bad input before anything starts.
func TestBadRoute(t *testing.T) {
	_, err := RunOne(context.Background(), workload.Target{}, Options{Route: "/cache/mysql", Connections: 1, Duration: time.Second})
	if err == nil || !strings.Contains(err.Error(), `--route "/cache/mysql"`) {
		t.Fatalf("err %v", err)
	}
}

// target installs (once for the binary, into implState) and checks impl name from the repo's
// impls/ with its variant, or skips when the machine lacks a prerequisite (make test installs
// them all: scripts/install-services.sh).
func target(t *testing.T, name, variant string) workload.Target {
	t.Helper()
	m, err := impl.Find("../../../impls", name)
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	inst, err := impl.Install(t.Context(), m, impl.InstallOptions{StateDir: implState, Executable: exe})
	if err != nil {
		t.Fatal(err)
	}
	if err := inst.Check(t.Context()); err != nil {
		if errors.Is(err, impl.ErrMissing) && os.Getenv("CI") == "" {
			t.Skipf("%s's prerequisites are missing here: %v", name, err)
		}
		t.Fatal(err)
	}
	v, ok := m.Variant(variant)
	if !ok {
		t.Fatalf("%s has no variant %q", name, variant)
	}
	return workload.Target{Inst: inst, Variant: v}
}

// TestVerifyEveryImpl runs `iobench verify`'s checks of every cachequeue impl on fresh stores of
// the test's own: each route answers as docs/IMPLS.md ("The HTTP routes") says from the first request on (a counter
// that does not exist yet included), and a route that pushes to ZeroMQ has a peer to push to.
func TestVerifyEveryImpl(t *testing.T) {
	for _, name := range []string{"php-cachequeue", "go-cachequeue", "python-cachequeue", "node-cachequeue"} {
		t.Run(name, func(t *testing.T) {
			tg := target(t, name, "")
			privateStores(t)
			var out strings.Builder
			failures, err := verify(t.Context(), &workload.VerifyEnv{Out: &out}, tg.Inst)
			if err != nil || failures != 0 {
				t.Fatalf("%d failures, err %v:\n%s", failures, err, out.String())
			}
		})
	}
}

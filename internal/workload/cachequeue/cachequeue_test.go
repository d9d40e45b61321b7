package cachequeue

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/service/servicetest"
	"github.com/iobench/iobench/internal/workload"
)

func TestMain(m *testing.M) { servicetest.Main(m) }

// TestCheck covers the count check's verdicts: exact, within the requests that got no answer,
// too few, too many, and a fake route that moved a store.
func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		route                        string
		change, answered, unanswered int64
		ok                           bool
		want                         string
	}{
		{"/cache/redis", 100, 100, 0, true, "100 counted for 100 responses"},
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
	target := phpTarget(t)
	for _, route := range Routes {
		t.Run(strings.ReplaceAll(route[1:], "/", "-"), func(t *testing.T) {
			rec, err := RunOne(t.Context(), target, Options{Route: route, Connections: 4, Duration: time.Second,
				Warmup: 300 * time.Millisecond, Timeout: 2 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			c := rec.Cachequeue
			if c == nil || !c.Counted || c.Answered == 0 {
				t.Fatalf("section %+v", c)
			}
			t.Logf("%s: %.0f req/s; %s", route, rec.Throughput.Mean, c.Detail)
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

// TestBadRoute: an unknown route is bad input before anything starts.
func TestBadRoute(t *testing.T) {
	_, err := RunOne(context.Background(), workload.Target{}, Options{Route: "/cache/mysql", Connections: 1, Duration: time.Second})
	if err == nil || !strings.Contains(err.Error(), `--route "/cache/mysql"`) {
		t.Fatalf("err %v", err)
	}
}

// phpTarget installs and checks impls/php/cachequeue, or skips when the machine lacks a
// prerequisite (make test installs them all: scripts/install-services.sh).
func phpTarget(t *testing.T) workload.Target {
	t.Helper()
	m, err := impl.Find("../../../impls", "php-cachequeue")
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	for _, d := range []string{filepath.Dir(state), state} {
		if err := os.Chmod(d, 0o711); err != nil { // nginx's user enters the state directory
			t.Fatal(err)
		}
	}
	inst, err := impl.Install(t.Context(), m, impl.InstallOptions{StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	if err := inst.Check(t.Context()); err != nil {
		if errors.Is(err, impl.ErrMissing) && os.Getenv("CI") == "" {
			t.Skipf("php-cachequeue's prerequisites are missing here: %v", err)
		}
		t.Fatal(err)
	}
	return workload.Target{Inst: inst, Variant: m.Variants[0]}
}

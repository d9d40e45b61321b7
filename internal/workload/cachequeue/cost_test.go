package cachequeue

import (
	"testing"
	"time"

	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/service"
)

// TestStoreCostRecorded: the store of a run's route, started by iobench (here for the run: no
// environment variable and no `services up` name one), is recorded as a service process with
// its CPU, threads and memory; the store the route does not use is not.
func TestStoreCostRecorded(t *testing.T) {
	t.Setenv(env.StateDir, openTempDir(t)) // the stores run as their own users
	for _, name := range []string{"redis", "memcached"} {
		t.Setenv(service.EnvName(name), "")
	}
	rec, err := RunOne(t.Context(), target(t, "go-cachequeue", "sync"), Options{Route: "/cache/redis", Connections: 4,
		Duration: time.Second, Warmup: 300 * time.Millisecond, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var redis int
	for _, p := range rec.Processes {
		switch {
		case p.Name == "memcached":
			t.Errorf("memcached recorded for /cache/redis: %+v", p)
		case p.Name == "redis" && p.Role == "service":
			redis++
			if p.CPUUser+p.CPUSystem == 0 || len(p.HotThreads) == 0 || p.PeakRSS == 0 || p.PID == 0 {
				t.Errorf("redis's cost is incomplete: %+v", p)
			}
			t.Logf("redis: %.0f%% of a core, busiest threads %v, peak %d KiB", p.CPUPercent, p.HotThreads, p.PeakRSS>>10)
		}
	}
	if redis != 1 {
		t.Fatalf("%d redis service processes in %+v; want 1", redis, rec.Processes)
	}
}

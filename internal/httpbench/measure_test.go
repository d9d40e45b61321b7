package httpbench

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/httpload"
	"github.com/iobench/iobench/internal/procstat"
	"github.com/iobench/iobench/internal/rawhttp"
	"github.com/iobench/iobench/internal/rawhttp/rawhttptest"
)

// TestMeasureCountsTheMeasuredPhase runs a warm-up three times as long as the measured phase: the
// record's generator CPU is the measured phase's, about a quarter of what the process spent over
// the whole run, not all of it.
func TestMeasureCountsTheMeasuredPhase(t *testing.T) {
	target := okServer(t, 0)
	cfg := engine.Config{
		Target: target, Request: httpload.RequestSpec{Method: "GET", Target: target}.Build(),
		Connections: 4, Threads: 1, Timeout: 2 * time.Second, KeepAlive: true,
		Warmup: 600 * time.Millisecond, Duration: 200 * time.Millisecond,
	}
	before := procstat.Self()
	rec, err := Measure(context.Background(), cfg, Meta{})
	if err != nil {
		t.Fatal(err)
	}
	whole := procstat.Self().Sub(before).CPU().Seconds()
	gen := rec.Processes[0]
	measured := gen.CPUUser + gen.CPUSystem
	t.Logf("generator %.3f CPU-s in the measured phase, the process %.3f over the run", measured, whole)
	if measured <= 0 || measured > 0.6*whole {
		t.Errorf("generator %.3f CPU-s of the process's %.3f over a run three quarters warm-up: want the measured phase's share", measured, whole)
	}
	if rec.CPUProbe <= 0 {
		t.Errorf("cpu_probe_us %v: want the machine's speed probed before the load", rec.CPUProbe)
	}
}

// okServer starts a server answering every request 200 "ok" after taking delay, and returns
// its target.
func okServer(t *testing.T, delay time.Duration) httpload.Target {
	t.Helper()
	url := rawhttptest.URL(t, func(ctx context.Context, ln net.Listener) error {
		return rawhttp.Serve(ctx, ln, func(_ context.Context, _ rawhttp.Request, a *rawhttp.Answer) {
			time.Sleep(delay)
			a.Status, a.Body = 200, append(a.Body, "ok"...)
		})
	})
	target, err := httpload.ParseURL(url + "/")
	if err != nil {
		t.Fatal(err)
	}
	return target
}

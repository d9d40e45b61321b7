package httpbench

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/capacity"
	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/httpload"
)

// TestStepStopsWhenSpent: a step far past the service's knee (four connections to a service
// taking 50 ms a request, at 200 req/s, p99 < 10 ms) stops at its first second, once more
// answers are over the limit than its whole window leaves room for, not at the end of its 4 s.
func TestStepStopsWhenSpent(t *testing.T) {
	target := okServer(t, 50*time.Millisecond)
	slo, _ := capacity.ParseSLO("p99<10ms")
	st := &stepper{slos: []capacity.SLO{slo}, base: engine.Config{
		Target: target, Request: httpload.RequestSpec{Method: "GET", Target: target}.Build(),
		Threads: 1, Timeout: 2 * time.Second, KeepAlive: true, Warmup: 200 * time.Millisecond, Duration: 4 * time.Second,
	}}
	began := time.Now()
	res, err := st.step(context.Background(), 200, 4)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(began)
	t.Logf("%v: %s", took, res.Stopped)
	if !strings.HasPrefix(res.Stopped, "stopped after 1s of 4s") || took > 3*time.Second {
		t.Errorf("took %v, stopped %q: want the step stopped at its first second", took, res.Stopped)
	}
}

// TestPoissonSteps: with Poisson arrivals a step is held to the rate its schedule offered, and
// each step draws a schedule of its own: two steps at one rate offer different counts, each the
// count its seed draws (a confirmation is not a replay of the step before it).
func TestPoissonSteps(t *testing.T) {
	target := okServer(t, 0)
	st := &stepper{base: engine.Config{
		Target: target, Request: httpload.RequestSpec{Method: "GET", Target: target}.Build(),
		Threads: 1, Timeout: 2 * time.Second, KeepAlive: true, Duration: time.Second,
		Arrivals: engine.ArrivalsPoisson, Seed: 11,
	}}
	var offered []float64
	for range 2 {
		r, err := st.step(context.Background(), 2000, 8)
		if err != nil {
			t.Fatal(err)
		}
		offered = append(offered, r.Offered)
	}
	for i, o := range offered {
		if o <= 0 || math.Abs(o-2000) > 4*math.Sqrt(2000) {
			t.Errorf("step %d offered %.0f req/s, want a Poisson count of mean 2,000", i, o)
		}
	}
	if offered[0] == offered[1] {
		t.Errorf("both steps offered %.0f req/s: want a schedule drawn anew for each", offered[0])
	}
}

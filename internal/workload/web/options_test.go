package web

import (
	"testing"

	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/scenario"
)

// TestOptionsArrivals: a scenario's arrivals shape its open loops only; the closed loop of the
// same matrix (rate 0) runs as it always did.
func TestOptionsArrivals(t *testing.T) {
	r := scenario.Run{Params: map[string]any{"arrivals": engine.ArrivalsPoisson}}
	if o := Options(r, "http://127.0.0.1:1/", 100); o.Arrivals != engine.ArrivalsPoisson {
		t.Errorf("open loop: arrivals %q, want poisson", o.Arrivals)
	}
	o := Options(r, "http://127.0.0.1:1/", 0)
	if o.Arrivals != "" {
		t.Errorf("closed loop: arrivals %q, want none", o.Arrivals)
	}
	o.Duration, o.Timeout = 1e9, 1e9
	if _, err := o.Config(); err != nil {
		t.Errorf("closed loop of a poisson scenario: %v", err)
	}
}

package engine

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"
)

// TestStartAtHoldsTheLoad checks, for both engines and both loop models, that with StartAt
// nothing is sent before StartAt minus the warm-up, and that the measured phase begins at
// StartAt, whenever Run was called.
func TestStartAtHoldsTheLoad(t *testing.T) {
	for _, engine := range Engines {
		for _, rate := range []float64{0, 200} {
			t.Run(fmt.Sprintf("%s/rate=%g", engine, rate), func(t *testing.T) { testStartAt(t, engine, rate) })
		}
	}
}

func testStartAt(t *testing.T, engine string, rate float64) {
	var first atomic.Int64 // Unix ns of the first request the server saw
	srv := newCountingServer(t, func(_ int64, w http.ResponseWriter, _ *http.Request) {
		first.CompareAndSwap(0, time.Now().UnixNano())
		w.Write([]byte("Hello world!"))
	})
	cfg := config(t, engine, srv.URL)
	cfg.Rate, cfg.Duration, cfg.Warmup = rate, 300*time.Millisecond, 100*time.Millisecond
	cfg.StartAt = time.Now().Add(400 * time.Millisecond).Round(0) // wall clock only, as --start-at gives it
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Engine != engine {
		t.Fatalf("engine %q ran, want %q (%s)", res.Engine, engine, res.EngineNote)
	}
	load := cfg.StartAt.Add(-cfg.Warmup)
	if got := time.Unix(0, first.Load()); got.Before(load) {
		t.Errorf("first request at %v, %v before the warm-up was to begin", got, load.Sub(got))
	}
	if skew := res.Start.Sub(cfg.StartAt); skew < 0 || skew > 100*time.Millisecond {
		t.Errorf("measured phase began %v after StartAt, want at it (within 100ms on a busy machine)", skew)
	}
	if res.Succeeded == 0 {
		t.Fatal("nothing measured")
	}
}

package engine

import (
	"context"
	"net"
	"regexp"
	"runtime"
	"testing"

	"github.com/iobench/iobench/internal/h2wire/h2wiretest"
	"github.com/iobench/iobench/internal/rawhttp"
	"github.com/iobench/iobench/internal/rawhttp/rawhttptest"
)

// hello answers "Hello world!" without allocating (rawhttp), so that the allocations a test
// counts are the generator's.
func helloRaw(_ context.Context, _ rawhttp.Request, a *rawhttp.Answer) {
	a.Status, a.Body = 200, append(a.Body, "Hello world!"...)
}

// TestLoopAllocsPerRequest checks that the event loop allocates nothing per request in steady
// state: two runs of different lengths against an allocation-free server differ in their
// allocations by less than one per hundred extra requests (set-up costs the same in both).
func TestLoopAllocsPerRequest(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	url := rawhttptest.URL(t, func(ctx context.Context, ln net.Listener) error { return rawhttp.Serve(ctx, ln, helloRaw) })
	for _, tc := range []struct {
		name     string
		rate     float64
		keep     bool
		timing   string
		pipeline int
	}{
		{"closed", 0, false, "", 0},
		{"closed, body kept, header captured", 0, true, "app", 0},
		{"closed, pipelined 16 deep", 0, false, "", 16},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mallocs := func(n int64) uint64 {
				cfg := config(t, EngineLoop, url+"/")
				cfg.Connections, cfg.Threads, cfg.Requests, cfg.Timing, cfg.Pipeline = 4, 1, n, tc.timing, tc.pipeline
				if tc.keep { // --expect-body keeps every body to match it
					cfg.Expect.Body = regexp.MustCompile(`^Hello world!$`)
				}
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				res, err := Run(context.Background(), cfg)
				runtime.ReadMemStats(&after)
				if err != nil || res.Succeeded != n || res.Engine != EngineLoop {
					t.Fatalf("run of %d: %v, %d succeeded, engine %q", n, err, res.Succeeded, res.Engine)
				}
				return after.Mallocs - before.Mallocs
			}
			mallocs(1000) // warm up what is made once per process
			short, long := mallocs(1000), mallocs(11000)
			perRequest := (float64(long) - float64(short)) / 10000
			t.Logf("%d allocations for 1,000 requests, %d for 11,000: %.4f per request", short, long, perRequest)
			if perRequest >= 0.01 {
				t.Errorf("the event loop allocates %.4f times per request, want 0", perRequest)
			}
		})
	}
}

// TestH2AllocsPerResponse checks the HTTP/2 loop against a server that allocates nothing per
// request and adds nothing to the HPACK dynamic table: the bound is one allocation per response,
// and this loop makes none (a server indexing new header values costs the decoder one each),
// blocking in epoll (16 streams on each of 4 connections) or coalescing its wake-ups (64: 256 in
// flight, coalesceDeep or more).
func TestH2AllocsPerResponse(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	url := h2wiretest.StartLean(t)
	for _, streams := range []int{16, 64} {
		mallocs := func(n int64) uint64 {
			cfg := config(t, EngineLoop, url)
			cfg.Connections, cfg.Threads, cfg.Requests, cfg.HTTP2, cfg.Streams = 4, 1, n, true, streams
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			res, err := Run(context.Background(), cfg)
			runtime.ReadMemStats(&after)
			if err != nil || res.Succeeded != n || res.Coalesced != (4*streams >= coalesceDeep) {
				t.Fatalf("%d streams, run of %d: %v, %d succeeded (errors %v), coalesced %v", streams, n, err, res.Succeeded, res.Errors, res.Coalesced)
			}
			return after.Mallocs - before.Mallocs
		}
		mallocs(1000)
		short, long := mallocs(1000), mallocs(11000)
		perResponse := (float64(long) - float64(short)) / 10000
		t.Logf("%d streams: %d allocations for 1,000 requests, %d for 11,000: %.4f per response", streams, short, long, perResponse)
		if perResponse >= 0.01 {
			t.Errorf("%d streams: the HTTP/2 loop allocates %.4f times per response, want 0", streams, perResponse)
		}
	}
}

// TestEngineChosen checks the selection: the loop by default and when asked, the goroutine
// engine when asked, and the result names the one that ran.
func TestEngineChosen(t *testing.T) {
	url := rawhttptest.URL(t, func(ctx context.Context, ln net.Listener) error { return rawhttp.Serve(ctx, ln, helloRaw) })
	for _, tc := range []struct{ ask, want string }{{"", EngineLoop}, {EngineLoop, EngineLoop}, {EngineGoroutine, EngineGoroutine}} {
		cfg := config(t, tc.ask, url+"/")
		cfg.Requests = 10
		res, err := Run(context.Background(), cfg)
		if err != nil || res.Engine != tc.want || res.EngineNote != "" {
			t.Errorf("asked %q: ran %q (note %q, err %v), want %q", tc.ask, res.Engine, res.EngineNote, err, tc.want)
		}
	}
	if err := (&Config{Connections: 1, Threads: 1, Requests: 1, Timeout: 1, Engine: "threads"}).Validate(); err == nil {
		t.Error("an unknown engine was accepted")
	}
}

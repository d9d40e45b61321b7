package engine

import (
	"context"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/rawhttp"
	"github.com/iobench/iobench/internal/rawhttp/rawhttptest"
)

// TestStampedReadTimesTheArrival reads a byte 20 ms after it arrived: a stamped socket's answer is
// timed at its arrival, an unstamped one's at the read.
func TestStampedReadTimesTheArrival(t *testing.T) {
	for _, stamped := range []bool{true, false} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		client, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer client.Close()
		server, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		defer server.Close()
		raw, err := client.(*net.TCPConn).SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		var age time.Duration
		raw.Control(func(fd uintptr) {
			if stamped {
				stamp(int(fd))
			}
			// The kernel turns stamping on for the whole machine a moment after the first
			// socket asks (a deferred work item), so the first segments may come unstamped.
			for try := 0; try < 5 && age == 0; try++ {
				age = readAfter(t, server, int(fd), 20*time.Millisecond)
			}
		})
		t.Logf("stamped %v: answered %v before the read returned", stamped, age)
		if stamped && age < 19*time.Millisecond {
			t.Errorf("stamped: answered %v before the read; want the 20 ms it waited in the socket", age)
		}
		if !stamped && age != 0 {
			t.Errorf("unstamped: answered %v before the read; want the read's own time", age)
		}
	}
}

// readAfter writes a byte from server, lets it wait d in the socket fd, reads it as a coalescing
// loop does and returns how long before the read the answer was timed.
func readAfter(t *testing.T, server net.Conn, fd int, d time.Duration) time.Duration {
	server.Write([]byte("x"))
	time.Sleep(d)
	l := &loop{co: newCoalescer()}
	c := &loopConn{fd: fd, arrived: 1}
	var b [8]byte
	if n, again, err := l.readStamped(c, b[:]); n != 1 || again || err != nil {
		t.Fatalf("read %d bytes, again %v, err %v; want the 1 byte written", n, again, err)
	}
	now := time.Now()
	age := now.Sub(answeredAt(c, now.Add(-time.Second), now))
	return age
}

// TestCoalescingLoop runs the loop at a rate where it coalesces and below it: the run says which,
// keeps its rate and counts every request once.
func TestCoalescingLoop(t *testing.T) {
	url := rawhttptest.URL(t, func(ctx context.Context, ln net.Listener) error { return rawhttp.Serve(ctx, ln, helloRaw) })
	for _, tc := range []struct {
		rate      float64
		coalesced bool
	}{{2 * coalesceRate, true}, {coalesceRate / 10, false}} {
		cfg := config(t, EngineLoop, url+"/")
		cfg.Connections, cfg.Threads, cfg.Rate, cfg.Duration = 20, 1, tc.rate, 500*time.Millisecond
		res, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		planned := int64(tc.rate / 2)
		t.Logf("rate %.0f: coalesced %v, %d of %d succeeded, p50 %.0fus (uncorrected %.0fus), lag p99 %.0fus",
			tc.rate, res.Coalesced, res.Succeeded, planned, res.Latency.Quantile(50), res.Uncorrected.Quantile(50), res.Lag.Quantile(99))
		if res.Coalesced != tc.coalesced {
			t.Errorf("rate %.0f: coalesced %v, want %v", tc.rate, res.Coalesced, tc.coalesced)
		}
		if res.Succeeded < planned/2 || res.Succeeded > planned+int64(cfg.Connections) {
			t.Errorf("rate %.0f: %d succeeded, want about %d", tc.rate, res.Succeeded, planned)
		}
		if res.Uncorrected.Quantile(50) > res.Latency.Quantile(50) {
			t.Errorf("rate %.0f: uncorrected p50 above the corrected one: an answer timed before its send", tc.rate)
		}
	}
}

// TestCoalescingLoopAllocs checks that a coalescing loop allocates nothing per request: two runs
// of different lengths at the same rate differ in their allocations by less than one per hundred
// extra requests.
func TestCoalescingLoopAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	url := rawhttptest.URL(t, func(ctx context.Context, ln net.Listener) error { return rawhttp.Serve(ctx, ln, helloRaw) })
	run := func(d time.Duration) (uint64, int64) {
		cfg := config(t, EngineLoop, url+"/")
		cfg.Connections, cfg.Threads, cfg.Rate, cfg.Duration = 20, 1, 2*coalesceRate, d
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		res, err := Run(context.Background(), cfg)
		runtime.ReadMemStats(&after)
		if err != nil || !res.Coalesced {
			t.Fatalf("run of %v: %v, coalesced %v", d, err, res.Coalesced)
		}
		return after.Mallocs - before.Mallocs, res.Succeeded
	}
	run(200 * time.Millisecond) // warm up what is made once per process
	short, n1 := run(300 * time.Millisecond)
	long, n2 := run(1300 * time.Millisecond)
	perRequest := (float64(long) - float64(short)) / float64(n2-n1)
	t.Logf("%d allocations for %d requests, %d for %d: %.4f per request", short, n1, long, n2, perRequest)
	if perRequest >= 0.01 {
		t.Errorf("the coalescing loop allocates %.4f times per request, want 0", perRequest)
	}
}

// TestDeepClosedLoopCoalesces runs a closed loop with coalesceDeep requests in flight or more
// (10 connections pipelining 16 deep) and one with fewer (4 deep): the first coalesces, the
// second blocks in epoll, and each answers every request once.
func TestDeepClosedLoopCoalesces(t *testing.T) {
	url := rawhttptest.URL(t, func(ctx context.Context, ln net.Listener) error { return rawhttp.Serve(ctx, ln, helloRaw) })
	for _, tc := range []struct {
		depth     int
		coalesced bool
	}{{16, true}, {4, false}} {
		cfg := config(t, EngineLoop, url+"/")
		cfg.Connections, cfg.Threads, cfg.Pipeline, cfg.Requests = 10, 1, tc.depth, 5000
		res, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("depth %d: coalesced %v, %d succeeded, p50 %.0fus", tc.depth, res.Coalesced, res.Succeeded, res.Latency.Quantile(50))
		if res.Coalesced != tc.coalesced || res.Succeeded != 5000 || res.Latency.Count() != 5000 || len(res.Errors) != 0 {
			t.Errorf("depth %d: coalesced %v, %d succeeded, %d latencies, errors %v; want coalesced %v and 5,000 answered once",
				tc.depth, res.Coalesced, res.Succeeded, res.Latency.Count(), res.Errors, tc.coalesced)
		}
	}
}

package engine

import (
	"bytes"
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/rawhttp"
	"github.com/iobench/iobench/internal/rawhttp/rawhttptest"
)

const helloResp = "HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\nHello world!"

// holdServer answers nothing until `hold` requests of a connection are waiting, then answers
// exactly that many at once; seen counts the requests received. A client that does not keep
// `hold` requests in flight gets no answer at all.
func holdServer(t *testing.T, hold int, seen *atomic.Int64) string {
	return rawhttptest.URL(t, func(ctx context.Context, ln net.Listener) error {
		go func() { <-ctx.Done(); ln.Close() }()
		for {
			c, err := ln.Accept()
			if err != nil {
				return nil
			}
			go holdAnswers(c, hold, seen)
		}
	}) + "/"
}

func holdAnswers(c net.Conn, hold int, seen *atomic.Int64) {
	defer c.Close()
	buf := make([]byte, 64<<10)
	batch := bytes.Repeat([]byte(helloResp), hold)
	var pending []byte
	waiting := 0
	for {
		n, err := c.Read(buf)
		if err != nil {
			return
		}
		pending = append(pending, buf[:n]...)
		for {
			i := bytes.Index(pending, []byte("\r\n\r\n"))
			if i < 0 {
				break
			}
			pending = pending[i+4:]
			waiting++
			seen.Add(1)
		}
		for ; waiting >= hold; waiting -= hold {
			if _, err := c.Write(batch); err != nil {
				return
			}
		}
	}
}

func pipelined(t *testing.T, url string, depth int) Config {
	cfg := config(t, EngineLoop, url)
	cfg.Connections, cfg.Threads, cfg.Pipeline = 1, 1, depth
	return cfg
}

// TestPipelineKeepsDepthInFlight runs a closed loop 8 deep against a server that answers only
// when 6 requests of a connection wait, 6 at a time: only a client that keeps 6 or more in flight
// (it refills once 8/4 = 2 are left) gets answers, and it gets them without a stall.
func TestPipelineKeepsDepthInFlight(t *testing.T) {
	var seen atomic.Int64
	cfg := pipelined(t, holdServer(t, 6, &seen), 8)
	cfg.Connections, cfg.Threads, cfg.Duration, cfg.Timeout = 3, 2, 500*time.Millisecond, 300*time.Millisecond
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Succeeded < 100 || len(res.Errors) != 0 || res.Latency.Count() != res.Succeeded || res.Answered > seen.Load() {
		t.Fatalf("succeeded %d, errors %v, %d latencies, answered %d of the %d the server saw; want hundreds answered, none failed",
			res.Succeeded, res.Errors, res.Latency.Count(), res.Answered, seen.Load())
	}
}

// TestPipelineTimesEachRequestFromItsOwnStart runs an open loop, four deep, against a server that
// answers four requests at once: the first of each four waits for the three after it (three
// intervals at least) while the last is answered as soon as it arrives, so only latency timed
// from each request's own intended start, not its batch's, spans that range.
func TestPipelineTimesEachRequestFromItsOwnStart(t *testing.T) {
	var seen atomic.Int64
	cfg := pipelined(t, holdServer(t, 4, &seen), 4)
	cfg.Rate, cfg.Duration = 100, time.Second // one request every 10 ms
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	interval := 10 * time.Millisecond
	lo, hi := time.Duration(res.Latency.Quantile(0)*1e3), time.Duration(res.Latency.Quantile(100)*1e3)
	t.Logf("%d succeeded, latency %v to %v, errors %v", res.Succeeded, lo, hi, res.Errors)
	if res.Succeeded < 40 || len(res.Errors) != 0 {
		t.Fatalf("%d succeeded, errors %v; want about 100 answered in fours", res.Succeeded, res.Errors)
	}
	if hi < 3*interval {
		t.Errorf("longest latency %v: the first of four waits three intervals (%v) for the others", hi, 3*interval)
	}
	if lo >= interval {
		t.Errorf("shortest latency %v: the last of four is answered on arrival, so well under an interval (%v) from its own start", lo, interval)
	}
}

// TestPipelineCloseCountsInFlight runs four deep against a server that answers one request per
// connection with Connection: close: each connection's other three requests end as ErrInFlight,
// counted exactly, none lost.
func TestPipelineCloseCountsInFlight(t *testing.T) {
	url := answerServer(t, "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok", true, false)
	cfg := pipelined(t, url, 4)
	cfg.Requests = 4 * 25
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	got := res.Errors[ErrInFlight]
	if res.Succeeded != 25 || got != 75 || len(res.Errors) != 1 || res.Answered != 25 || res.Unanswered != 75 {
		t.Fatalf("succeeded %d, errors %v, answered %d, unanswered %d; want 25 answered and 75 %s errors", res.Succeeded, res.Errors, res.Answered, res.Unanswered, ErrInFlight)
	}
}

// TestPipelineTimeoutChargesOldest runs four deep against a server that never answers: at the
// deadline the oldest request is a timeout and the three behind it end as ErrInFlight.
func TestPipelineTimeoutChargesOldest(t *testing.T) {
	url := rawhttptest.URL(t, func(ctx context.Context, ln net.Listener) error {
		go func() { <-ctx.Done(); ln.Close() }()
		for {
			c, err := ln.Accept()
			if err != nil {
				return nil
			}
			go func() { defer c.Close(); c.Read(make([]byte, 4096)); <-ctx.Done() }()
		}
	}) + "/"
	cfg := pipelined(t, url, 4)
	cfg.Timeout, cfg.Duration = 100*time.Millisecond, 450*time.Millisecond
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	timeouts := res.Errors[ErrTimeout]
	if timeouts == 0 || res.Errors[ErrInFlight] != 3*timeouts || res.Succeeded != 0 {
		t.Fatalf("errors %v, succeeded %d; want timeouts, each with 3 %s errors behind it", res.Errors, res.Succeeded, ErrInFlight)
	}
}

// TestPipelineAgainstRawhttp runs 16 deep against the project's own server, which answers a
// read's pipelined requests in one write: every request answered, counted once.
func TestPipelineAgainstRawhttp(t *testing.T) {
	var seen atomic.Int64
	url := rawhttptest.URL(t, func(ctx context.Context, ln net.Listener) error {
		return rawhttp.Serve(ctx, ln, func(ctx context.Context, r rawhttp.Request, a *rawhttp.Answer) {
			seen.Add(1)
			helloRaw(ctx, r, a)
		})
	})
	cfg := pipelined(t, url+"/", 16)
	cfg.Connections, cfg.Threads, cfg.Requests = 5, 2, 10007
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if n := cfg.Requests; res.Succeeded != n || seen.Load() != n || res.Latency.Count() != n {
		t.Fatalf("succeeded %d, server saw %d, %d latencies; want %d each (errors %v)", res.Succeeded, seen.Load(), res.Latency.Count(), n, res.Errors)
	}
}

func TestValidatePipeline(t *testing.T) {
	base := Config{Connections: 1, Threads: 1, Duration: time.Second, Timeout: time.Second, KeepAlive: true}
	for _, tc := range []struct {
		name string
		edit func(*Config)
		ok   bool
	}{
		{"default", func(*Config) {}, true},
		{"16 deep", func(c *Config) { c.Pipeline = 16 }, true},
		{"1024 deep", func(c *Config) { c.Pipeline = MaxDepth }, true},
		{"1025 deep", func(c *Config) { c.Pipeline = MaxDepth + 1 }, false},
		{"negative", func(c *Config) { c.Pipeline = -1 }, false},
		{"no keep-alive", func(c *Config) { c.Pipeline, c.KeepAlive = 2, false }, false},
		{"goroutine engine", func(c *Config) { c.Pipeline, c.Engine = 2, EngineGoroutine }, false},
	} {
		c := base
		tc.edit(&c)
		if err := c.Validate(); (err == nil) != tc.ok {
			t.Errorf("%s: error %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}

// TestShortRunHasItsDuration runs -n so fast (pipelined, against the project's own server) that
// the load may finish before the warm-up timer fires or the first tick: the measured phase still
// has its length and the rate its value.
func TestShortRunHasItsDuration(t *testing.T) {
	url := rawhttptest.URL(t, func(ctx context.Context, ln net.Listener) error { return rawhttp.Serve(ctx, ln, helloRaw) })
	for i := 0; i < 5; i++ {
		cfg := pipelined(t, url+"/", 16)
		cfg.Requests = 200
		res, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if res.Succeeded != 200 || res.Elapsed <= 0 || res.Start.IsZero() {
			t.Fatalf("run %d: %d succeeded in %v from %v; want 200 in a measured phase of some length", i, res.Succeeded, res.Elapsed, res.Start)
		}
	}
}

package engine

import (
	"crypto/tls"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"time"

	"github.com/iobench/iobench/internal/httpload"
)

// Config is one load run.
type Config struct {
	Target httpload.Target
	// TLS, for an https target, is the client configuration every connection's handshake uses
	// (httpload.TLSConfig: one session cache for the run); nil for plain http.
	TLS         *tls.Config
	Request     []byte // the raw request, built once (httpload.RequestSpec.Build)
	Connections int
	Threads     int
	Duration    time.Duration // measured phase; ignored when Requests > 0
	Requests    int64         // total requests (ab's -n) instead of a duration
	Rate        float64       // open loop: total requests per second; 0 = closed loop
	Warmup      time.Duration // load before measuring, not counted
	Timeout     time.Duration // per request; a slower response is a timeout error
	KeepAlive   bool          // reuse connections; false closes after each response, as ab without -k
	// Pipeline is how many HTTP/1.1 requests a connection keeps written ahead of their answers
	// (0 or 1: one at a time). Only the event loop pipelines.
	Pipeline int
	// HTTP2 speaks HTTP/2, Streams requests at once on each connection (0 or 1: one): with prior
	// knowledge (h2c) on an http:// target, through ALPN h2 over TLS on an https:// one (TLS is
	// then made to offer h2 alone). Only the event loop speaks it.
	HTTP2   bool
	Streams int
	Expect  Expect
	// Drain ends a timed run by draining instead of aborting: at the deadline no request starts
	// (none whose intended start is at or after it, in an open loop), those in flight finish, up
	// to 1.5 timeouts, and they count; the measured phase ends with the last of them. Without
	// it the run ends as wrk's does: live sockets are closed and late responses dropped.
	Drain bool
	// Timing names the Server-Timing metric (e.g. "app") whose dur the run collects from every
	// counted success into Result.Timing; empty collects nothing and reads no extra header.
	Timing string
	// Engine is EngineLoop, EngineGoroutine, or "" for the default: the event loop where it can
	// run, else the goroutine engine (Result.EngineNote says why).
	Engine string
	// StartAt, when set, is the wall-clock instant the measured phase begins; the load (warm-up
	// included) begins Warmup before it and nothing is sent earlier. Agents given one StartAt
	// measure together (internal/agent).
	StartAt time.Time
	// Phase shifts every intended start of an open loop by this much, so that agents sharing one
	// schedule interleave (agent I of N at rate R/N is shifted by I/R; internal/agent).
	Phase time.Duration
	// Arrivals spaces an open loop's requests: ArrivalsEven ("" too) or ArrivalsPoisson, drawn
	// from Seed; Stream tells apart the generators that share one seed (agent I of a run draws
	// stream I; internal/agent).
	Arrivals     string
	Seed, Stream uint64
	Clock        Clock                // nil = RealClock
	OnSecond     func(Snapshot)       // called once per second of the measured phase (may be nil)
	ConnectWait  time.Duration        // pause after a failed connect before redialing; 0 = 50ms
	dial         func() (conn, error) // tests only; nil = httpload.Dial

	// OnComplete, when set, sees the end of every counted request that was sent, from the
	// connections' threads at once (a fault's timeline: internal/fault); it must be quick.
	OnComplete func(Completion)
}

// The arrivals of an open loop (Config.Arrivals).
const (
	// ArrivalsEven spaces requests exactly 1/R apart, as wrk2 does: the schedule a steady
	// client would keep.
	ArrivalsEven = "even"
	// ArrivalsPoisson spaces them at random, independent, exponentially distributed gaps of mean
	// 1/R, as pgbench's --rate does: the arrivals of many clients who do not wait for each other,
	// which bunch up now and then as real traffic does.
	ArrivalsPoisson = "poisson"
)

// ArrivalKinds are the values of Config.Arrivals.
var ArrivalKinds = []string{ArrivalsEven, ArrivalsPoisson}

// Completion is one counted request's end, as Config.OnComplete sees it.
type Completion struct {
	Sent, Done time.Time
	Status     int    // the response's status; 0 without one
	Class      string // "" for a success, else its error class (ErrorClasses)
}

// Expect says which responses count as successes.
type Expect struct {
	Status []int          // accepted status codes; empty accepts 2xx and 3xx
	Body   *regexp.Regexp // when set, the body must match
}

// Validate reports the first problem with cfg as a one-line error with a hint.
func (c *Config) Validate() error {
	switch {
	case c.Connections <= 0:
		return errors.New("connections must be at least 1 (-c 1)")
	case c.Threads <= 0:
		return errors.New("threads must be at least 1 (-t 1)")
	case c.Threads > c.Connections:
		return fmt.Errorf("%d threads for %d connections: each thread needs a connection; use -t %d or more connections", c.Threads, c.Connections, c.Connections)
	case c.Rate < 0:
		return errors.New("rate must be positive (-R 1000); leave -R out for a closed loop")
	case c.Rate > 0 && c.Requests > 0:
		return errors.New("-R (open loop for a duration) and -n (a number of requests) do not mix; use -d with -R")
	case c.Requests < 0:
		return errors.New("requests must be positive (-n 10000)")
	case c.Requests == 0 && c.Duration <= 0:
		return errors.New("duration must be positive (-d 10s)")
	case c.Timeout <= 0:
		return errors.New("timeout must be positive (--timeout 2s)")
	case c.Engine != "" && c.Engine != EngineLoop && c.Engine != EngineGoroutine:
		return fmt.Errorf("engine %q is not known; use --engine loop or --engine goroutine", c.Engine)
	case c.Arrivals != "" && !slices.Contains(ArrivalKinds, c.Arrivals):
		return fmt.Errorf("--arrivals %q is not known; use --arrivals even or --arrivals poisson", c.Arrivals)
	case c.Arrivals == ArrivalsPoisson && c.Rate == 0:
		return errors.New("--arrivals poisson spaces an open loop's requests; give its rate with -R")
	}
	return c.validatePipeline()
}

// MaxDepth bounds --pipeline (and --streams): more in flight per connection than this measures
// the server's queue, not its service.
const MaxDepth = 1024

func (c *Config) validatePipeline() error {
	switch {
	case c.Streams != 0 && !c.HTTP2:
		return errors.New("--streams needs HTTP/2: add --http2 (https://) or --http2-prior-knowledge (http://), or use --pipeline for HTTP/1.1")
	case c.Streams < 0 || c.Streams > MaxDepth:
		return fmt.Errorf("--streams %d is out of range; give 1 to %d streams per connection", c.Streams, MaxDepth)
	case c.HTTP2 && c.Pipeline > 1:
		return errors.New("--pipeline is for HTTP/1.1; with HTTP/2 use --streams")
	case c.HTTP2:
		return c.validateHTTP2()
	case c.Pipeline < 0 || c.Pipeline > MaxDepth:
		return fmt.Errorf("--pipeline %d is out of range; give 1 to %d requests in flight per connection", c.Pipeline, MaxDepth)
	case c.Pipeline <= 1:
		return nil
	case !c.KeepAlive:
		return errors.New("--pipeline needs keep-alive connections; drop --no-keepalive or --pipeline")
	case c.Engine == EngineGoroutine || c.TLS != nil:
		return errors.New("--pipeline runs on the event loop only, which speaks plain http://; drop --engine goroutine, or use http://")
	}
	return nil
}

func (c *Config) validateHTTP2() error {
	switch {
	case !c.KeepAlive:
		return errors.New("--streams and HTTP/2 need keep-alive connections; drop --no-keepalive")
	case c.Engine == EngineGoroutine:
		return errors.New("HTTP/2 runs on the event loop only; drop --engine goroutine")
	case c.Timing != "":
		return errors.New("Server-Timing is not read over HTTP/2 yet; drop it or use HTTP/1.1")
	}
	return nil
}

// depth is how many requests a connection keeps in flight: pipelined, or on streams.
func (c *Config) depth() int {
	if c.HTTP2 {
		return max(1, c.Streams)
	}
	return max(1, c.Pipeline)
}

// ok reports whether a response meets the expectations, and the error class when it does not.
func (e Expect) ok(status int, body []byte) (bool, string) {
	if len(e.Status) == 0 {
		if status < 200 || status >= 400 {
			return false, ErrStatus
		}
	} else if !containsInt(e.Status, status) {
		return false, ErrStatus
	}
	if e.Body != nil && !e.Body.Match(body) {
		return false, ErrExpect
	}
	return true, ""
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// UntilMeasured is how long from now the measured phase of a run started now begins: at StartAt
// when set, else after the warm-up. What is measured over that phase alone (the generator's and
// the impl's cost) starts counting then.
func (c *Config) UntilMeasured() time.Duration {
	if !c.StartAt.IsZero() {
		return time.Until(c.StartAt)
	}
	return c.Warmup
}

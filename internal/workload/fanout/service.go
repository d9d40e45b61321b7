package fanout

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// Routes are the fanout routes every impl serves.
var Routes = []string{"/sync", "/async", "/async-overlap"}

// Service is the Go impl of the fanout workload (`iobench serve fanout`, impls/go/fanout): net/http,
// a goroutine per request, one shared keep-alive client to the upstream.
//
//   - /sync calls the upstream, then works;
//   - /async starts the call in a goroutine, works, then waits for it: a goroutine starts at
//     once, so in Go the seed's shape overlaps;
//   - /async-overlap runs the call and the work in two goroutines and waits for both.
//
// Work is time.Sleep: the request makes no progress, other requests run meanwhile. Every answer
// carries Server-Timing: app;dur=MS, its handling time from the handler's start to its answer.
type Service struct {
	Upstream string // the upstream's URL
	Work     time.Duration
	Client   *http.Client // nil: a keep-alive client with room for 256 idle connections
}

// Handler returns the service's routes; any other path answers 404 with a one-line reason.
func (s *Service) Handler() http.Handler {
	if s.Client == nil {
		s.Client = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /sync", s.timed(func(ctx context.Context) ([]byte, error) {
		body, err := s.call(ctx)
		time.Sleep(s.Work)
		return body, err
	}))
	async := s.timed(func(ctx context.Context) ([]byte, error) {
		done := s.start(ctx)
		time.Sleep(s.Work)
		r := <-done
		return r.body, r.err
	})
	mux.HandleFunc("GET /async", async)
	mux.HandleFunc("GET /async-overlap", s.timed(func(ctx context.Context) ([]byte, error) {
		call, work := s.start(ctx), make(chan struct{})
		go func() { time.Sleep(s.Work); close(work) }()
		<-work
		r := <-call
		return r.body, r.err
	}))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, fmt.Sprintf("no such route: %s %s; the routes are GET /sync, /async and /async-overlap", r.Method, r.URL.Path), http.StatusNotFound)
	})
	return mux
}

type callResult struct {
	body []byte
	err  error
}

// start begins one upstream call in a goroutine of its own.
func (s *Service) start(ctx context.Context) <-chan callResult {
	done := make(chan callResult, 1)
	go func() {
		b, err := s.call(ctx)
		done <- callResult{b, err}
	}()
	return done
}

// call GETs the upstream once and returns its body.
func (s *Service) call(ctx context.Context) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.Upstream, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.Client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("upstream answered %d", resp.StatusCode)
	}
	return body, err
}

// timed answers with what handle returns, its handling time in Server-Timing; an upstream
// failure is a 502 with a one-line reason.
func (s *Service) timed(handle func(ctx context.Context) ([]byte, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		t0 := time.Now()
		body, err := handle(r.Context())
		w.Header().Set("Server-Timing", ServerTimingValue(time.Since(t0)))
		if err != nil {
			http.Error(w, "upstream: "+err.Error(), http.StatusBadGateway)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	}
}

// ServerTimingValue is the Server-Timing header of a handling time d: "app;dur=21.304".
func ServerTimingValue(d time.Duration) string {
	return "app;dur=" + strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 3, 64)
}

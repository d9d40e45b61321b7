package fanout

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/iobench/iobench/internal/hrtimer"
)

// UpstreamBody is what the upstream answers, as the seed's FooBarController does.
const UpstreamBody = `{"foo":"bar"}`

// CountPath is the upstream's count of the calls it received, as a decimal number and a newline.
// It is not a call: it does not count itself.
const CountPath = "/count"

// DefaultDelay is the upstream's delay and DefaultWork the impls' work, as in the seed.
const (
	DefaultDelay = 10 * time.Millisecond
	DefaultWork  = 10 * time.Millisecond
)

// Upstream is iobench's upstream: every GET except CountPath is a call, counted on arrival and
// answered with UpstreamBody (application/json) after Delay, timed by a clock of its own (made
// at the first call; Close stops it) that ends each wait to within the kernel's high-resolution
// timer (hrtimer).
type Upstream struct {
	Delay time.Duration
	calls atomic.Int64
	once  sync.Once
	waits *hrtimer.Clock
}

func (u *Upstream) clock() *hrtimer.Clock {
	u.once.Do(func() { u.waits = hrtimer.New() })
	return u.waits
}

// Close stops the upstream's clock; a call after it waits on a time.Timer.
func (u *Upstream) Close() error { return u.clock().Close() }

// Calls returns the calls received so far.
func (u *Upstream) Calls() int64 { return u.calls.Load() }

// ServeHTTP answers one request.
func (u *Upstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == CountPath {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintf(w, "%d\n", u.calls.Load())
		return
	}
	u.calls.Add(1)
	if u.Delay > 0 {
		if u.clock().Until(r.Context(), time.Now().Add(u.Delay)); r.Context().Err() != nil {
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(UpstreamBody)))
	io.WriteString(w, UpstreamBody)
}

// countClient reads the upstream's count; its own connections, never the impl's.
var countClient = &http.Client{Timeout: 5 * time.Second}

// Count reads the calls an upstream at base (http://host:port/) has received.
func Count(ctx context.Context, base string) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(base, "/")+CountPath, nil)
	if err != nil {
		return 0, err
	}
	resp, err := countClient.Do(req)
	if err != nil {
		return 0, fmt.Errorf("upstream count: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64))
	if err != nil {
		return 0, fmt.Errorf("upstream count: %w", err)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if resp.StatusCode != http.StatusOK || err != nil {
		return 0, fmt.Errorf("upstream count: status %d, body %q", resp.StatusCode, b)
	}
	return n, nil
}

package collect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/iobench/iobench/internal/merge"
	"github.com/iobench/iobench/internal/result"
)

// maxRecord bounds the size of a posted record.
const maxRecord = 64 << 20

// Config says what a collector waits for.
type Config struct {
	Agents  int           // records to wait for
	Run     string        // the run's id; "" takes the first record's
	Timeout time.Duration // how long Wait waits for the last record
	Log     io.Writer     // one line per record taken or refused
}

// Collector takes the records of one run's agents.
type Collector struct {
	cfg      Config
	mu       sync.Mutex
	set      *merge.Set
	refused  []string
	complete chan struct{}
	quiet    bool // Wait is over: the caller writes to the log now
}

// New returns a collector waiting for cfg.Agents records.
func New(cfg Config) *Collector {
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	return &Collector{cfg: cfg, set: merge.NewSet(cfg.Run, cfg.Agents), complete: make(chan struct{})}
}

// Add takes one agent's record, or says why not (merge.ErrDuplicate, ErrOtherRun, ErrCount,
// ErrNotAgent); what it refuses is noted for the merged record's warnings.
func (c *Collector) Add(rec *result.Record) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.set.Add(rec); err != nil {
		c.refused = append(c.refused, err.Error())
		c.logf("collect: refused %v\n", err)
		return err
	}
	a := rec.Agent
	c.logf("collect: agent %d/%d of run %s in (%d of %d)\n", a.Index, a.Count, a.Run, c.set.Len(), c.cfg.Agents)
	if c.set.Complete() {
		close(c.complete)
	}
	return nil
}

// logf writes one line to the log until Wait is over; c.mu is held.
func (c *Collector) logf(format string, args ...any) {
	if !c.quiet {
		fmt.Fprintf(c.cfg.Log, format, args...)
	}
}

// ServeHTTP takes a record posted as JSON: 200 when taken, 400 when it is not a record, 409 when
// refused; the body is the one-line reason.
func (c *Collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "post an agent's JSON record here", http.StatusMethodNotAllowed)
		return
	}
	var rec result.Record
	dec := json.NewDecoder(io.LimitReader(r.Body, maxRecord))
	if err := dec.Decode(&rec); err != nil {
		http.Error(w, "not a result record: "+err.Error(), http.StatusBadRequest)
		return
	}
	if err := c.Add(&rec); err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	fmt.Fprintln(w, "taken")
}

// Wait returns the merged record once every agent's record is in, or an error wrapping
// merge.ErrMissing that names the agents still missing when the timeout ends (or ctx).
func (c *Collector) Wait(ctx context.Context, command []string) (*result.Record, error) {
	timer := time.NewTimer(c.cfg.Timeout)
	defer timer.Stop()
	select {
	case <-c.complete:
	case <-timer.C:
	case <-ctx.Done():
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.quiet = true
	if !c.set.Complete() {
		_, err := c.set.Merge(command)
		return nil, fmt.Errorf("%w after waiting %s", err, c.cfg.Timeout)
	}
	rec, err := c.set.Merge(command)
	if err != nil {
		return nil, err
	}
	for _, r := range c.refused {
		rec.Warnings = append(rec.Warnings, "the collector refused "+r)
	}
	return rec, nil
}

// Stop ends srv once the requests it is answering are done (at most a few seconds), so that
// nothing logs after the merged block.
func Stop(srv *http.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if srv.Shutdown(ctx) != nil {
		srv.Close()
	}
}

// Serve answers on l in the background until it is stopped (Stop).
func (c *Collector) Serve(l net.Listener) *http.Server {
	srv := &http.Server{Handler: c, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			c.mu.Lock()
			c.logf("collect: %v\n", err)
			c.mu.Unlock()
		}
	}()
	return srv
}

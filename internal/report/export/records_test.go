package export_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/httpbench"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/workload/hello/hellotest"
)

// live is one real open-loop run, made once for the package's tests.
var live struct {
	once sync.Once
	rec  *result.Record
	err  error
}

// liveRecord returns the record of a real open-loop run: iobench's generator at 2,000 req/s for
// 2 s over 4 connections against the built-in hello server, in-process on 127.0.0.1. It holds
// all three histograms (latency, uncorrected, lag) and a series of two seconds.
func liveRecord(t *testing.T) *result.Record {
	t.Helper()
	live.once.Do(func() {
		url := hellotest.URL(t)
		opt := httpbench.Options{URL: url, Threads: 1, Connections: 4, Duration: 2 * time.Second,
			Rate: 2000, RateSet: true, Timeout: 2 * time.Second}
		cfg, err := opt.Config()
		if err != nil {
			live.err = err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		live.rec, live.err = httpbench.Measure(ctx, cfg, httpbench.Meta{Workload: "hello", Impl: "go-hello", Mode: "async",
			Command: []string{"iobench", "http", "-R", "2000", "-c4", "-d2s", url}})
	})
	if live.err != nil {
		t.Fatalf("the live run failed: %v", live.err)
	}
	if live.rec.Latency == nil || live.rec.Uncorrected == nil || live.rec.ScheduleLag == nil || len(live.rec.Series) < 2 {
		t.Fatalf("the live run lacks histograms or series: %+v", live.rec)
	}
	return live.rec
}

// savedRecord loads a record of the report's test data: real runs of the quick suite.
func savedRecord(t *testing.T, name string) *result.Record {
	t.Helper()
	r, err := result.Load(filepath.Join("..", "testdata", "records", name))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

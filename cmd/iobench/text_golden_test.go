package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/iobench/iobench/internal/golden"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/textblock"
	"github.com/iobench/iobench/internal/workload"
)

// quickDir holds real records of the quick suite, one or more per workload.
const quickDir = "../../internal/report/testdata/quick"

// TestTextGolden writes each command's text block for a fixed, real record and compares it
// with its golden file, so that a change of wording or units is made on purpose: go test
// -update rewrites them, and the diff shows what changed.
func TestTextGolden(t *testing.T) {
	for _, tc := range []struct{ golden, record string }{
		{"hello-closed", "hello.go-hello.load-closed.r1"}, // a hello run: iobench http's block
		{"hello-open", "hello.go-hello.load-open.r1"},
		{"bus", "bus.go-bus_async.r1"},
		{"publish", "publish.go-publisher_pool.r1"},
		{"fanout", "fanout.go-fanout.route-_async.r1"},
		{"cachequeue", "cachequeue.go-cachequeue_async.route-_cache_redis.r1"},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			rec, err := result.Load(filepath.Join(quickDir, tc.record+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if ok, err := workload.Text(&b, rec); !ok || err != nil {
				t.Fatalf("no text block for workload %s: %v", rec.Workload, err)
			}
			golden.Check(t, filepath.Join("testdata", "text", tc.golden+".golden"), b.Bytes())
		})
	}
}

// TestHTTPTextGolden is the http command's own block (iobench http prints it with --latency)
// of the same closed-loop record.
func TestHTTPTextGolden(t *testing.T) {
	rec, err := result.Load(filepath.Join(quickDir, "hello.go-hello.load-closed.r1.json"))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	textblock.HTTP(&b, rec, textblock.TextOptions{Latency: true})
	golden.Check(t, filepath.Join("testdata", "text", "http-latency.golden"), b.Bytes())
}

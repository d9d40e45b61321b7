package textblock

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/golden"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/stats"
)

// fixture builds a record from known samples, so the golden output is exact.
func fixture(open bool) *result.Record {
	h := stats.NewHistogram()
	for i := 1; i <= 10000; i++ {
		h.Record(time.Duration(i) * 100 * time.Nanosecond * 10) // 1 µs .. 10 ms
	}
	rec := &result.Record{
		SchemaVersion: result.SchemaVersion,
		Workload:      "http",
		LoadModel:     "closed",
		Target:        "http://127.0.0.1:8080/",
		Parameters:    map[string]any{"threads": 2, "connections": 100, "duration": "10s"},
		Duration:      result.Duration(10 * time.Second),
		Counts: result.Counts{Attempted: 10004, Succeeded: 9990, Failed: 14, BytesRead: 1234567,
			Errors: map[string]int64{"status": 10, "timeout": 3, "connect": 1}},
		Throughput: result.Throughput{Unit: "req/s", Mean: 999, PeakSecond: 1100.5, BytesPerSec: 123456.7},
		Latency:    h.Summary(),
		ThreadRate: stats.Rates([]float64{480, 500, 520, 510, 490}),
		Processes: []result.Process{{Name: "iobench", Role: "generator", CPUUser: 1.5, CPUSystem: 2.25, PeakRSS: 8 << 20, CPUPercent: 37.5,
			HotThreads: []float64{20.1, 17.4}}},
		Environment: result.Environment{Cores: 2},
		Warnings:    []string{"p99.99 rests on 1 samples beyond it"},
	}
	if open {
		rec.LoadModel = "open"
		rec.Throughput.TargetRate = 1000
		rec.Uncorrected = h.Summary()
		lag := stats.NewHistogram()
		lag.Record(5 * time.Microsecond)
		rec.ScheduleLag = lag.Summary()
		rec.Counts.Late = 42
	}
	return rec
}

// poisson makes rec an open loop's with Poisson arrivals (--arrivals poisson).
func poisson(rec *result.Record) *result.Record {
	rec.Parameters["arrivals"] = "poisson"
	return rec
}

// withTLS makes rec an https run's: 120 handshakes, 20 of them resumed.
func withTLS(rec *result.Record) *result.Record {
	hs, conn := stats.NewHistogram(), stats.NewHistogram()
	for i := 1; i <= 120; i++ {
		hs.Record(time.Duration(i) * 10 * time.Microsecond) // 10 µs .. 1.2 ms
		conn.Record(time.Duration(i) * time.Microsecond)
	}
	rec.Target = "https://127.0.0.1:8443/"
	rec.TLS = &result.TLS{Handshakes: 120, Resumed: 20, Version: "TLS 1.3", CipherSuite: "TLS_AES_128_GCM_SHA256",
		Protocol: "http/1.1", Handshake: hs.Summary(), Connect: conn.Summary()}
	return rec
}

// expecting makes rec a run whose only success was the statuses given (--expect-status, or a
// workload's own), and in which none succeeded.
func expecting(rec *result.Record, workload string, statuses ...int) *result.Record {
	rec.Workload = workload
	rec.Parameters["expect_status"] = statuses
	rec.Counts.Succeeded, rec.Counts.Errors["status"] = 0, rec.Counts.Succeeded+rec.Counts.Errors["status"]
	return rec
}

func TestHTTPGolden(t *testing.T) {
	tests := []struct {
		name string
		rec  *result.Record
		opt  TextOptions
	}{
		{"closed", fixture(false), TextOptions{}},
		{"closed-latency", fixture(false), TextOptions{Latency: true}},
		{"open", fixture(true), TextOptions{}},
		{"https", withTLS(fixture(false)), TextOptions{}},
		{"https-open", withTLS(fixture(true)), TextOptions{}},
		{"poisson", poisson(fixture(true)), TextOptions{}},
		{"expect-status", expecting(fixture(false), "http", 201, 204), TextOptions{}},
		{"workload-status", expecting(fixture(false), "hello", 200), TextOptions{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			HTTP(&b, tt.rec, tt.opt)
			golden.Check(t, filepath.Join("testdata", tt.name+".golden"), b.Bytes())
		})
	}
}

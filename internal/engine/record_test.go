package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/result"
)

func TestWarnings(t *testing.T) {
	healthy := func() *result.Record {
		return &result.Record{
			LoadModel:  "closed",
			Duration:   result.Duration(10 * time.Second),
			Counts:     result.Counts{Attempted: 2_000_000, Succeeded: 2_000_000},
			Throughput: result.Throughput{Mean: 200_000},
			Latency:    &result.Latency{Count: 2_000_000},
		}
	}
	calm := Usage{CPU: 5 * time.Second, Wall: 10 * time.Second, Threads: 1, Cores: 2, Planned: 10 * time.Second}
	tests := []struct {
		name string
		edit func(*result.Record, *Usage)
		want string // "" = no warning
	}{
		{"healthy", func(*result.Record, *Usage) {}, ""},
		{"generator saturated", func(_ *result.Record, u *Usage) { u.CPU = 9500 * time.Millisecond }, "generator saturated"},
		{"few samples", func(r *result.Record, _ *Usage) { r.Latency.Count = 500 }, "p99 rests on 5 samples"},
		{"p99.99 thin", func(r *result.Record, _ *Usage) { r.Latency.Count = 50_000 }, "p99.99 rests on 5 samples"},
		{"short open loop", func(r *result.Record, u *Usage) { r.LoadModel = "open"; u.Planned = 2 * time.Second }, "shorter than 5s"},
		{"connect errors", func(r *result.Record, _ *Usage) {
			r.Counts.Errors = map[string]int64{"connect": 3}
			r.Counts.Failed = 3
		}, "3 connect errors"},
		{"in flight at a close", func(r *result.Record, _ *Usage) {
			r.Counts.Errors = map[string]int64{ErrInFlight: 15}
			r.Counts.Failed = 15
		}, "15 requests were in flight"},
		{"nothing succeeded", func(r *result.Record, _ *Usage) { r.Counts.Succeeded = 0; r.Counts.Failed = 10 }, "no request succeeded"},
		{"rate missed", func(r *result.Record, _ *Usage) { r.Throughput.TargetRate = 400_000 }, "target rate missed"},
		{"rate missed evenly", func(r *result.Record, _ *Usage) { r.Throughput.TargetRate, r.Counts.Attempted = 100, 930 }, "target rate missed"},
		{"poisson short by chance", func(r *result.Record, _ *Usage) { // 2.2 sd of a Poisson count of 1,000
			r.Throughput.TargetRate, r.Counts.Attempted, r.Parameters = 100, 930, map[string]any{"arrivals": ArrivalsPoisson}
		}, ""},
		{"poisson missed", func(r *result.Record, _ *Usage) {
			r.Throughput.TargetRate, r.Counts.Attempted, r.Parameters = 100, 850, map[string]any{"arrivals": ArrivalsPoisson}
		}, "target rate missed"},
		{"interrupted", func(r *result.Record, _ *Usage) { r.Interrupted = true }, "partial result"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, u := healthy(), calm
			tt.edit(rec, &u)
			got := strings.Join(Warnings(rec, u), " | ")
			if tt.want == "" && got != "" {
				t.Fatalf("unexpected warnings: %s", got)
			}
			if !strings.Contains(got, tt.want) {
				t.Fatalf("warnings %q lack %q", got, tt.want)
			}
		})
	}
}

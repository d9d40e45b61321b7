// Package stats wraps HdrHistogram for latency (fixed memory, 3 significant digits, 1 µs to 1 h,
// exact merges) and turns histograms into result.Latency summaries. Workers record into their own
// Histogram without locks; the engine merges them, never averaging percentiles.
package stats

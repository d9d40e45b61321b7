// Package export writes a result record in the formats other tools read: the HdrHistogram
// percentile distribution (.hgrm) that HdrHistogram's plotter draws, the per-second series as CSV,
// and OpenMetrics text that Prometheus scrapes or a Pushgateway takes. Each reads the record alone
// and says in one line what a record lacks for a format (fail.ErrBadInput), so that `iobench
// report --format` can exit 2 on it.
package export

// Package compare tells whether a change between two sets of runs is real, as benchstat does for
// Go benchmarks: for each group of repeats (workload, impl, mode, load model) found on both sides
// and each metric (throughput, p50, p99, p99.9, errors, and capacity: a --find-max record's max
// sustainable rate), it gives the ratio of the medians and
// whether the change exceeds the spread of the repeats.
//
// With at least 3 repeats on each side, that is a two-sided Mann-Whitney U test at a
// significance level α (0.05 by default), and p is shown; note that with exactly 3 per side the
// smallest p possible is 0.10, so 4 or more repeats are needed to call any change significant at
// 0.05. With fewer repeats the table says "too few repeats" and calls a change real only when the
// min–max ranges of the two sides do not overlap.
//
// Thresholds such as "p99>+10%" or "throughput<-5%" (ParseThreshold) are checked against the
// medians' change; Check returns the violations, for CI to fail on.
package compare

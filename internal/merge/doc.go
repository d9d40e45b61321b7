// Package merge makes one record of the records of a distributed run's agents (iobench http
// --agent I/N). Latency histograms are added exactly (the HDR histograms the records carry, so
// every percentile is the one of all samples recorded in one place), counts are summed, the
// per-second series are aligned by wall-clock second, and each agent's share and cost stay beside
// the whole in the record's merged section. A Set takes the records one at a time, refusing a
// duplicate, another run's record or an unknown agent, so that nothing is merged twice; iobench
// merge and iobench collect both go through it.
package merge

package bus

import (
	"context"

	"github.com/iobench/iobench/internal/result"
)

// Pair runs base twice on the same services, first with a sync consumer, then with an async one
// (base's concurrency and prefetch), as `iobench run` does for its short bus pair. It stops at
// the first error; the records of the runs that ended are returned with it.
func Pair(ctx context.Context, base Config) (syncRec, asyncRec *result.Record, err error) {
	s := base
	s.Mode = ModeSync
	if syncRec, err = Run(ctx, s); err != nil {
		return syncRec, nil, err
	}
	a := base
	a.Mode = ModeAsync
	asyncRec, err = Run(ctx, a)
	return syncRec, asyncRec, err
}

// Speedup returns how many times faster b processed commands than a (mean over the command
// phase), e.g. async over sync; 0 when a has no rate.
func Speedup(a, b *result.Record) float64 {
	if a == nil || b == nil || a.Throughput.Mean <= 0 {
		return 0
	}
	return b.Throughput.Mean / a.Throughput.Mean
}

package report

// The report asks the registry how a workload's records are verified, paged and charted, and
// for the figures a seed's claim compares; these tests use the workloads' own registrations.
import (
	_ "github.com/iobench/iobench/internal/workload/bus"
	_ "github.com/iobench/iobench/internal/workload/cachequeue"
	_ "github.com/iobench/iobench/internal/workload/fanout"
	_ "github.com/iobench/iobench/internal/workload/hello"
	_ "github.com/iobench/iobench/internal/workload/publish"
)

package report

// The report asks the registry how a workload's records are verified, paged and charted; these
// tests use the bus's own registration.
import _ "github.com/iobench/iobench/internal/workload/bus"

// Package inject puts latency between a system under test and one of its services (--inject
// SERVICE:latency=5ms[,jitter=200us], a scenario's inject: param): which service an injection
// names (Parse, Resolve), the relay that adds it, `iobench serve proxy` run as a child process
// whose cost is its own role (Start, Proxy), the SUT's URL pointed at it (Rewrite), and what it
// achieved in the record's inject section (Section), keyed by service kind.
//
// Only the SUT talks through the relay: iobench's own connections, filling, counting and
// draining, go to the service directly.
package inject

import (
	"github.com/iobench/iobench/internal/relay"
	"github.com/iobench/iobench/internal/workload"
)

func init() { workload.RegisterServe(relay.ServeCommand) }

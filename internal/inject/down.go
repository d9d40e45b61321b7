package inject

import (
	"time"

	"github.com/iobench/iobench/internal/relay"
)

// Down takes the relay down for d (relay.DownCommand): it cuts the SUT's connections to the
// service and refuses new ones, then heals on its own.
func (px *Proxy) Down(d time.Duration) error { return px.p.Send(relay.DownLine(d)) }

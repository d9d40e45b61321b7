package impl

import (
	"context"
	"fmt"

	"github.com/iobench/iobench/internal/sut"
)

// KillAndRestart is the kill-sut fault: it SIGKILLs the impl's whole process group (for a
// php_fpm impl, PHP-FPM's master and workers; nginx, the Front, stays up) and starts it again as
// Start did, on the same address and with the same environment, returning once it is ready.
// The Process then runs the new one; its cost (Usage) is the new one's from its start. It must
// not run while another goroutine uses the Process. killed, when set, runs between the kill and
// the start.
func (p *Process) KillAndRestart(ctx context.Context, killed func()) error {
	if p.Process == nil {
		return fmt.Errorf("impl %s: not started", p.opts.Name)
	}
	p.Kill()
	if killed != nil {
		killed()
	}
	np, err := sut.Start(ctx, p.opts)
	if err != nil {
		return startErr(ctx, err)
	}
	p.Process = np
	return nil
}

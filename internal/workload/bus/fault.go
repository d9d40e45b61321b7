package bus

import (
	"time"

	"github.com/iobench/iobench/internal/fault"
)

// faultSection is the run's faults section: its one fault, when it took effect since the
// consumer was first ready (At), and its recovery read from the commands' first reports (their
// consumer's own times); nil without a fault or before it struck.
func (r *run) faultSection(snap counts) *fault.Record {
	if r.t.timeline == nil || r.faultHit.IsZero() || r.readyAt.IsZero() {
		return nil
	}
	from := r.readyAt.Sub(r.start)
	at := r.faultHit.Sub(r.start)
	end := time.Unix(0, snap.lastCmd).Sub(r.start)
	rc := r.t.timeline.RecoverFrom(from, at, end)
	return &fault.Record{Faults: []fault.Event{fault.NewEvent(r.cfg.Fault.String(), at-from, r.bus.FaultRecovery.Std(), rc)}}
}

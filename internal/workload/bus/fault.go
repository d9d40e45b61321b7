package bus

import (
	"time"

	"github.com/iobench/iobench/internal/fault"
)

// faultSection is the run's faults section: its one fault, from when the consumer was first
// ready (At), and its recovery read from the commands' first reports; nil without a fault or
// before it struck.
func (r *run) faultSection(snap counts) *fault.Record {
	if r.t.timeline == nil || r.bus.FaultAt == 0 || r.readyAt.IsZero() {
		return nil
	}
	from := r.readyAt.Sub(r.start)
	at := r.bus.FaultAt.Std()
	end := time.Unix(0, snap.lastCmd).Sub(r.start)
	rc := r.t.timeline.RecoverFrom(from, at, end)
	return &fault.Record{Faults: []fault.Event{fault.NewEvent(r.cfg.Fault.String(), at-from, r.bus.FaultRecovery.Std(), rc)}}
}

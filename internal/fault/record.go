package fault

import (
	"fmt"
	"strings"
	"time"

	"github.com/iobench/iobench/internal/result"
)

// Key is the record section of a run with faults.
const Key = "faults"

func init() { result.RegisterSection(Key, func() any { return new(Record) }) }

// Section returns rec's faults section, nil when it has none.
func Section(rec *result.Record) *Record { return result.SectionOf[Record](rec, Key) }

// Record is the "faults" section of a record: each fault as it struck and how the run came back.
type Record struct {
	Faults []Event `json:"faults"`
	// Statuses counts the responses of the measured phase outside 2xx by status ("502": nginx
	// in front of a PHP-FPM that is down); none when every response was 2xx.
	Statuses map[string]int64 `json:"statuses,omitempty"`
}

// Event is one fault of a run.
type Event struct {
	Fault string `json:"fault"` // as --fault reads it: "kill-sut@50%"
	// At is when it took effect (the process killed, the service stopped, the relay cutting),
	// since the measured phase began; Took how long from then until its action ended (the
	// system ready again, the service back, the relay healed).
	At   result.Duration `json:"at"`
	Took result.Duration `json:"took"`
	// InFlight counts the requests in flight at the fault (sent before it took effect, ended
	// after its action began), by how they ended: "ok", or an error class (engine.ErrorClasses).
	InFlight map[string]int64 `json:"in_flight,omitempty"`
	// RateBefore is the success rate of the measured phase before the fault, per second.
	RateBefore float64 `json:"rate_before"`
	// FirstSuccess and Recovered are Recovery's, from the fault; nil when it never came.
	FirstSuccess *result.Duration `json:"first_success,omitempty"`
	Recovered    *result.Duration `json:"recovered,omitempty"`
	// Recovery says it in words.
	Recovery string `json:"recovery"`
}

// NewEvent is the event of a fault (as --fault reads it) that took effect at at and was over
// after took, with its recovery: for a workload that reads its own timeline (the bus).
func NewEvent(name string, at, took time.Duration, r Recovery) Event {
	e := Event{Fault: name, At: result.Duration(at), Took: result.Duration(took)}
	e.set(r)
	return e
}

// NotRecovered is an Event's Recovery when no window reached Share of the rate before; TooShort
// when the phase ended less than a Window after the fault, so that none could.
const (
	NotRecovered = "not recovered"
	TooShort     = "the phase ended under 1 s after the fault: too short to tell"
)

// set fills e's recovery fields from r.
func (e *Event) set(r Recovery) {
	e.RateBefore = float64(int64(r.Before*100+0.5)) / 100
	if r.FirstSuccess >= 0 {
		d := result.Duration(r.FirstSuccess)
		e.FirstSuccess = &d
	}
	switch {
	case r.Recovered < 0 && r.Short:
		e.Recovery = TooShort
		return
	case r.Recovered < 0:
		e.Recovery = NotRecovered
		return
	}
	d := result.Duration(r.Recovered)
	e.Recovered = &d
	e.Recovery = fmt.Sprintf("first success after %v; %.0f%% of the rate before (%.0f/s) by %v",
		r.FirstSuccess.Round(time.Millisecond), Share*100, r.Before, r.Recovered.Round(time.Millisecond))
}

// InFlightTotal is how many requests were in flight at the fault and did not succeed.
func (e Event) InFlightTotal() int64 {
	var n int64
	for class, v := range e.InFlight {
		if class != "ok" {
			n += v
		}
	}
	return n
}

// Case returns what a record's case adds for its faults ("kill-sut@50%"), so that a run with
// faults is a group of its own in the report; "" without.
func Case(rec *result.Record) string {
	s := Section(rec)
	if s == nil {
		return ""
	}
	names := make([]string, len(s.Faults))
	for i, e := range s.Faults {
		names[i] = e.Fault
	}
	return strings.Join(names, " ")
}

// WithCase returns c with the record's faults after it (Case).
func WithCase(c string, rec *result.Record) string {
	f := Case(rec)
	switch {
	case f == "":
		return c
	case c == "":
		return f
	}
	return c + " " + f
}

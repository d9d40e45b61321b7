package result

import (
	"encoding/json"
	"fmt"
	"time"
)

// Duration is a time.Duration that reads and writes JSON as {"ns": N, "text": "1.5s"}, so both
// programs and people read it without guessing the unit.
type Duration time.Duration

type durationJSON struct {
	NS   int64  `json:"ns"`
	Text string `json:"text"`
}

// MarshalJSON writes the duration in nanoseconds with a readable copy beside it.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(durationJSON{NS: int64(d), Text: time.Duration(d).String()})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var v durationJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("duration: %w", err)
	}
	*d = Duration(v.NS)
	return nil
}

// Std returns the value as a time.Duration.
func (d Duration) Std() time.Duration { return time.Duration(d) }

// Seconds returns the duration in seconds.
func (d Duration) Seconds() float64 { return time.Duration(d).Seconds() }

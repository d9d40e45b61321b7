package hello

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/iobench/iobench/internal/result"
)

// TestConnLimitSection: the probe after a run is written under connection_limit, with the keys
// records have always had, and read back typed for the connection-limit signature.
func TestConnLimitSection(t *testing.T) {
	rec := &result.Record{SchemaVersion: result.SchemaVersion, Workload: Name, Parameters: map[string]any{}}
	rec.SetSection(ConnLimitKey, &ConnLimit{Opened: 100, Answered: 60, TurnedAway: 40})
	b, err := json.Marshal(rec)
	if want := `"connection_limit":{"opened":100,"answered":60,"turned_away":40,"failed":0}`; err != nil || !bytes.Contains(b, []byte(want)) {
		t.Fatalf("record %s (%v); want %s", b, err, want)
	}
	var back result.Record
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if c := ConnLimitOf(&back); c == nil || *c != *ConnLimitOf(rec) {
		t.Fatalf("read back %+v", c)
	}
	if ok, why := flaw(&back, "connection-limit"); !ok {
		t.Fatalf("flaw: %s", why)
	}
}

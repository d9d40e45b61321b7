package capacity

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/iobench/iobench/internal/result"
)

// TestRecordRoundTrip: a search's section survives the record's JSON under "capacity" with the
// keys the issue lists, and its CSV rows are one per step.
func TestRecordRoundTrip(t *testing.T) {
	sec := search(t, settings(), knee(2000))
	rec := &result.Record{Workload: "http", Parameters: map[string]any{}}
	rec.SetSection(Key, sec)
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"capacity":{"max_sustainable_rate":`, `"bound":"service"`, `"slo":["p99\u003c20ms"]`, `"bracket":{"low":`,
		`"confirmations":{"runs":3,"passed":3}`, `"steps":[{"n":1,"phase":"climb"`, `"generator_cpu":`, `"run_queue_delay_us":`, `"late_sends":`, `"search":{"start_rate":1000,"ceiling":100000`} {
		if !bytes.Contains(b, []byte(key)) {
			t.Errorf("record lacks %s:\n%s", key, b)
		}
	}
	var back result.Record
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	got := Section(&back)
	if got == nil || *got.MaxSustainableRate != *sec.MaxSustainableRate || len(got.Steps) != len(sec.Steps) || got.Line() != sec.Line() {
		t.Fatalf("read back %+v, want %+v", got, sec)
	}
	head, rows := got.CSVRows()
	if len(rows) != len(sec.Steps) || len(head) != len(rows[0]) || head[3] != "target_rate" || rows[0][3] != "1000" || rows[len(rows)-1][1] != "confirm" {
		t.Errorf("csv rows: %v %v", head, rows)
	}
}

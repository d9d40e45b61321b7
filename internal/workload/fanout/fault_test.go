package fanout

import (
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/fault"
	"github.com/iobench/iobench/internal/result"
)

// TestCheckFaultCalls covers the upstream's count under faults, from hand-made counts: each
// 2xx answer made its call; other answers and requests without one may have made one.
func TestCheckFaultCalls(t *testing.T) {
	for _, tc := range []struct {
		name                string
		statuses            map[string]int64
		calls, answered, un int64
		ok                  bool
		says                string
	}{
		{"exact", nil, 1000, 1000, 0, true, "1000 calls for 1000 answered 2xx"},
		{"cut calls answered 502", map[string]int64{"502": 50}, 980, 1000, 0, true, "50 other answers"},
		{"killed after the call", nil, 1005, 1000, 5, true, "5 requests without one"},
		{"a 2xx without its call", map[string]int64{"500": 50}, 949, 1000, 0, false, "1 answers without their call"},
		{"one call too many", nil, 1006, 1000, 5, false, "1 more than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &result.Record{}
			rec.SetSection(fault.Key, &fault.Record{Statuses: tc.statuses})
			f := &Record{UpstreamCalls: tc.calls}
			checkFaultCalls(f, rec, &engine.Result{Answered: tc.answered, Unanswered: tc.un})
			if f.CallsVerified != tc.ok || !strings.Contains(f.Calls, tc.says) {
				t.Errorf("verified %v, %q; want %v saying %q", f.CallsVerified, f.Calls, tc.ok, tc.says)
			}
		})
	}
	f := &Record{UpstreamCalls: 3, CallsVerified: true, Calls: "as before"}
	checkFaultCalls(f, &result.Record{}, &engine.Result{Answered: 3})
	if f.Calls != "as before" || f.AnsweredOK != 0 {
		t.Errorf("a run without faults changed: %+v", f)
	}
}

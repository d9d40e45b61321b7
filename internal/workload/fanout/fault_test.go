package fanout

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/fault"
	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/workload"
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

// TestDownUpstream cuts go-fanout's upstream through a relay for 300 ms once 30% of 300
// requests have ended: the run waits for the heal, verifies (2xx answers made their calls), and
// records the fault with the answers it cost.
func TestDownUpstream(t *testing.T) {
	m, err := impl.Find(implsRoot, "go-fanout")
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	inst, err := impl.Install(t.Context(), m, impl.InstallOptions{StateDir: t.TempDir(), Executable: exe})
	if err != nil {
		t.Fatal(err)
	}
	tg := workload.Target{Inst: inst, Variant: m.Variants[0]}
	rec, err := RunOne(t.Context(), tg, Options{Route: "/async-overlap", Connections: 4, Requests: 300, Timeout: 2 * time.Second,
		Delay: DefaultDelay, Work: DefaultWork, Fault: []string{"down-upstream@30%+300ms"}})
	if err != nil {
		t.Fatal(err)
	}
	f, sec := Section(rec), fault.Section(rec)
	if f == nil || !f.CallsVerified || sec == nil || len(sec.Faults) != 1 {
		t.Fatalf("fanout %+v, faults %+v", f, sec)
	}
	e := sec.Faults[0]
	if e.Took.Std() < 300*time.Millisecond || e.FirstSuccess == nil || len(sec.Statuses) == 0 || f.AnsweredOK >= f.Answered {
		t.Errorf("fault %+v, statuses %v, %d of %d answers 2xx", e, sec.Statuses, f.AnsweredOK, f.Answered)
	}
	t.Logf("%s; %s", f.Calls, e.Recovery)
}

package cachequeue

import (
	"strings"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/fault"
	"github.com/iobench/iobench/internal/service"
)

// TestFaultCheck covers the store's count under faults, from hand-made counts: 2xx alone are
// answered; 502/504 and requests without an answer may have counted; a /queue/zmq kill's
// missing pushes are their own class; Memcached's unread increments bound its restart's loss.
func TestFaultCheck(t *testing.T) {
	kill := []fault.Spec{{Kind: fault.KillSUT, At: 0.5}}
	mc := fault.Record{Faults: []fault.Event{{Fault: "restart-memcached@50%", InFlight: map[string]int64{"ok": 7, "status": 3}}}}
	for _, tc := range []struct {
		name                 string
		route                string
		specs                []fault.Spec
		sec                  fault.Record
		change, answered, un int64
		ok                   bool
		says                 string
	}{
		{"exact", "/cache/redis", kill, fault.Record{}, 1000, 1000, 0, true, "1000 counted for 1000 answered 2xx"},
		{"in flight counted", "/cache/redis", kill, fault.Record{}, 1003, 1000, 5, true, "5 requests without one"},
		{"one lost", "/cache/redis", kill, fault.Record{}, 999, 1000, 5, false, "1 lost that no fault explains"},
		{"too many", "/cache/redis", kill, fault.Record{}, 1006, 1000, 5, false, "1 more than"},
		{"gateway may count", "/cache/redis", kill, fault.Record{Statuses: map[string]int64{"502": 10}}, 995, 1000, 0, true, "10 gateway answers"},
		{"gateway not 2xx", "/cache/redis", kill, fault.Record{Statuses: map[string]int64{"502": 10}}, 989, 1000, 0, false, "lost"},
		{"500s count nothing", "/cache/redis", kill, fault.Record{Statuses: map[string]int64{"500": 10}}, 991, 1000, 0, false, "1 more than"},
		{"zmq queued in the killed process", "/queue/zmq", kill, fault.Record{}, 900, 1000, 0, true, "100 pushes answered but still queued"},
		{"zmq without a kill", "/queue/zmq", []fault.Spec{}, fault.Record{}, 900, 1000, 0, false, "100 lost"},
		{"memcached unread", "/cache/memcached", nil, mc, 1000 - 7, 1000, 0, true, "up to 7 more"},
		{"memcached beyond", "/cache/memcached", nil, mc, 1000 - 8, 1000, 0, false, "1 lost"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &faults{route: tc.route, specs: tc.specs}
			c := &Record{Route: tc.route, Change: tc.change, Unanswered: tc.un}
			f.check(c, &engine.Result{Answered: tc.answered, Unanswered: tc.un}, &tc.sec)
			if c.Counted != tc.ok || !strings.Contains(c.Detail, tc.says) || c.Faults == nil {
				t.Errorf("counted %v, %q; want %v saying %q", c.Counted, c.Detail, tc.ok, tc.says)
			}
		})
	}
}

// TestFaultsCounted kills go-cachequeue halfway through a short run, then restarts its Redis
// halfway through another, on stores the run starts itself (a restart needs a store iobench
// owns): each run's count must verify, with its fault recorded and the run back to success.
func TestFaultsCounted(t *testing.T) {
	tg := target(t, "go-cachequeue", "async")
	t.Setenv("IOBENCH_STATE_DIR", openTempDir(t))
	for _, name := range []string{"redis", "memcached"} {
		t.Setenv(service.EnvName(name), "")
	}
	for _, f := range []string{"kill-sut@50%", "restart-redis@50%"} {
		t.Run(f, func(t *testing.T) {
			rec, err := RunOne(t.Context(), tg, Options{Route: "/cache/redis", Connections: 4, Duration: time.Second,
				Warmup: 300 * time.Millisecond, Timeout: 2 * time.Second, Fault: []string{f}})
			if err != nil {
				t.Fatal(err)
			}
			c, sec := Section(rec), fault.Section(rec)
			if c == nil || !c.Counted || c.Faults == nil || sec == nil || len(sec.Faults) != 1 {
				t.Fatalf("section %+v, faults %+v", c, sec)
			}
			e := sec.Faults[0]
			if e.Fault != f || e.FirstSuccess == nil || e.At.Std() < 400*time.Millisecond || e.At.Std() > 700*time.Millisecond {
				t.Errorf("fault %+v", e)
			}
			if restart := strings.HasPrefix(f, "restart"); restart != (c.Faults.StoreLost > 0) {
				t.Errorf("store lost %d after %s", c.Faults.StoreLost, f)
			}
			t.Logf("%s: %s; %s", f, c.Detail, e.Recovery)
		})
	}
}

package fault

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/fail"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/workload"
)

func TestParse(t *testing.T) {
	for in, want := range map[string]Spec{
		"kill-sut@50%":            {Kind: KillSUT, At: 0.5},
		"kill-sut":                {Kind: KillSUT, At: 0.5},
		"restart-redis@25%":       {Kind: Restart, Service: "redis", At: 0.25},
		"restart-broker@50%":      {Kind: Restart, Service: "rabbitmq", At: 0.5},
		"down-upstream@40%+2s":    {Kind: Down, Service: "upstream", At: 0.4, For: 2 * time.Second},
		"down-upstream@40%+500ms": {Kind: Down, Service: "upstream", At: 0.4, For: 500 * time.Millisecond},
	} {
		got, err := Parse(in)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", in, got, err, want)
		}
		if again, err := Parse(got.String()); err != nil || again != got {
			t.Errorf("Parse(%q) = %+v, %v; want %+v back", got.String(), again, err, got)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for in, says := range map[string]string{
		"nosuch@50%":          "unknown fault",
		"restart-@50%":        "unknown fault",
		"kill-sut@0%":         "strictly between",
		"kill-sut@100%":       "strictly between",
		"kill-sut@50":         "strictly between",
		"kill-sut@50%+2s":     "only a down fault",
		"down-upstream@50%":   "positive length",
		"down-upstream":       "point and length",
		"down-upstream@50%+x": "positive length",
	} {
		_, err := Parse(in)
		if !errors.Is(err, fail.ErrBadInput) || !strings.Contains(err.Error(), says) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Parse(%q) = %v; want one line of bad input saying %q", in, err, says)
		}
	}
}

func TestParseAll(t *testing.T) {
	got, err := ParseAll([]string{"kill-sut@30%; restart-redis@60%", ""})
	if err != nil || len(got) != 2 || Join(got) != "kill-sut@30%;restart-redis@60%" {
		t.Fatalf("ParseAll = %v, %v", got, err)
	}
}

func TestCheck(t *testing.T) {
	r := Run{Workload: "cachequeue", Target: "go-cachequeue:async", Restart: []string{"redis"}, Down: []string{"upstream"},
		OptedIn: func(s string) bool { return s == "redis" }, Length: 10 * time.Second}
	for in, says := range map[string]string{
		"kill-sut@50%":         "",
		"restart-redis@50%":    "",
		"down-upstream@50%+5s": "",
		"restart-postgres@50%": "does not use postgres",
		"down-redis@50%+1s":    "cannot cut redis",
		"down-upstream@50%+6s": "runs past the end",
	} {
		s, _ := Parse(in)
		err := Check([]Spec{s}, r)
		if says == "" && err != nil || says != "" && (!errors.Is(err, fail.ErrBadInput) || !strings.Contains(err.Error(), says)) {
			t.Errorf("Check(%s) = %v; want %q", in, err, says)
		}
	}
	r.Restart = append(r.Restart, "memcached")
	s, _ := Parse("restart-memcached@50%")
	if err := Check([]Spec{s}, r); err == nil || !strings.Contains(err.Error(), "restart_memcached") {
		t.Errorf("a variant that has not opted in: %v", err)
	}
	r.InProcess = true
	s, _ = Parse("kill-sut@50%")
	if err := Check([]Spec{s}, r); err == nil || !strings.Contains(err.Error(), "inside iobench") {
		t.Errorf("kill-sut in process: %v", err)
	}
}

func TestCount(t *testing.T) {
	s := Spec{Kind: KillSUT, At: 0.5}
	if s.Count(1001) != 501 || s.Count(1) != 1 || s.Offset(10*time.Second) != 5*time.Second {
		t.Errorf("Count(1001)=%d Count(1)=%d Offset=%v", s.Count(1001), s.Count(1), s.Offset(10*time.Second))
	}
}

// steady adds a success every step over [from, to) of tl's phase.
func steady(tl *Timeline, start time.Time, from, to, step time.Duration) {
	for d := from; d < to; d += step {
		tl.Success(start.Add(d))
	}
}

func TestRecover(t *testing.T) {
	start := time.Unix(1000, 0)
	tl := NewTimeline(start)
	// 1000/s for 5 s, nothing for 300 ms, 500/s for 1 s, then 1000/s again to 10 s.
	steady(tl, start, 0, 5*time.Second, time.Millisecond)
	steady(tl, start, 5300*time.Millisecond, 6300*time.Millisecond, 2*time.Millisecond)
	steady(tl, start, 6300*time.Millisecond, 10*time.Second, time.Millisecond)
	r := tl.Recover(5*time.Second, 10*time.Second)
	if r.Before != 1000 {
		t.Errorf("Before = %v, want 1000", r.Before)
	}
	if r.FirstSuccess != 301*time.Millisecond {
		t.Errorf("FirstSuccess = %v, want 301ms (the bin of 5.300 s ends then)", r.FirstSuccess)
	}
	// The first window at or after the fault with 900 successes, counted by brute force.
	want := firstWindow(t, start, tl)
	if r.Recovered != want {
		t.Errorf("Recovered = %v, want %v", r.Recovered, want)
	}
	if r.Recovered <= r.FirstSuccess || r.Recovered < Window {
		t.Errorf("Recovered %v must come after the first success %v and last at least a window", r.Recovered, r.FirstSuccess)
	}
}

// firstWindow counts by brute force, millisecond by millisecond, where the first window at or
// after 5 s with at least 900 successes ends, from 5 s.
func firstWindow(t *testing.T, start time.Time, tl *Timeline) time.Duration {
	t.Helper()
	for s := 5000; s+1000 <= 10000; s++ {
		if sum(tl.ok[s:s+1000]) >= 900 {
			return time.Duration(s+1000-5000) * time.Millisecond
		}
	}
	return -1
}

func TestNotRecovered(t *testing.T) {
	start := time.Unix(1000, 0)
	tl := NewTimeline(start)
	steady(tl, start, 0, 5*time.Second, time.Millisecond)
	steady(tl, start, 6*time.Second, 10*time.Second, 2*time.Millisecond) // back at half the rate
	r := tl.Recover(5*time.Second, 10*time.Second)
	if r.FirstSuccess != 1001*time.Millisecond || r.Recovered >= 0 {
		t.Errorf("got %+v; want a first success after 1.001 s and no recovery", r)
	}
	var e Event
	e.set(r)
	if e.Recovery != NotRecovered || e.Recovered != nil || e.FirstSuccess == nil {
		t.Errorf("event %+v", e)
	}
	// Nothing after the fault at all.
	if r := NewTimeline(start).Recover(time.Second, 2*time.Second); r.FirstSuccess >= 0 || r.Recovered >= 0 {
		t.Errorf("empty: %+v", r)
	}
}

func TestWatchInFlight(t *testing.T) {
	start := time.Now()
	w := NewWatch(start)
	s, _ := Parse("kill-sut@10%")
	var began, hitAt time.Time
	w.Start(t.Context(), []Spec{s}, 100*time.Millisecond, func(_ context.Context, _ Spec, hit func()) error {
		began = time.Now()
		time.Sleep(5 * time.Millisecond)
		hit()
		hitAt = time.Now()
		return nil
	})
	if err := w.Wait(); err != nil {
		t.Fatal(err)
	}
	ms := time.Millisecond
	w.Observe(began.Add(-ms), began.Add(ms), 0, "read")      // sent before the action: caught
	w.Observe(began.Add(ms), hitAt.Add(ms), 200, "")         // sent before the kill, answered
	w.Observe(hitAt.Add(ms), hitAt.Add(2*ms), 502, "status") // sent after: not in flight
	w.Observe(began.Add(-2*ms), began.Add(-ms), 200, "")     // ended before
	rec := w.Record(time.Second)
	e := rec.Faults[0]
	if e.InFlight["read"] != 1 || e.InFlight["ok"] != 1 || len(e.InFlight) != 2 || e.InFlightTotal() != 1 || rec.Statuses["502"] != 1 {
		t.Errorf("record %+v", rec)
	}
	if e.Fault != "kill-sut@10%" || e.At.Std() < 10*time.Millisecond || e.At.Std() > hitAt.Sub(start) {
		t.Errorf("event %+v", e)
	}
}

func TestWindowBeforeHit(t *testing.T) {
	now := time.Now()
	w := window{began: now}
	if !w.caught(now.Add(time.Millisecond), now.Add(2*time.Millisecond)) {
		t.Error("a request ended before the fault took effect, after its action began, must count as caught")
	}
	if w.caught(now.Add(-2*time.Millisecond), now.Add(-time.Millisecond)) {
		t.Error("a request ended before the action began is not caught")
	}
}

func TestTable(t *testing.T) {
	at, took, first, back := result.Duration(3*time.Second), result.Duration(40*time.Millisecond), result.Duration(51*time.Millisecond), result.Duration(1249*time.Millisecond)
	ok := &result.Record{}
	ok.SetSection(Key, &Record{Faults: []Event{{Fault: "kill-sut@50%", At: at, Took: took, InFlight: map[string]int64{"ok": 3, "read": 20, "connect": 1},
		FirstSuccess: &first, Recovered: &back}}})
	lost := &result.Record{}
	lost.SetSection(Key, &Record{Faults: []Event{{Fault: "restart-redis@50%", At: at, Took: took}}})
	tab := Table([]workload.TableGroup{{Workload: "hello", Label: "go-hello", Records: []*result.Record{ok, lost, {}}}})
	want := [][]string{
		{"go-hello", "–", "1", "kill-sut@50%", "3.000 s", "0.040 s", "connect 1, read 20", "0.051 s", "1.249 s"},
		{"go-hello", "–", "2", "restart-redis@50%", "3.000 s", "0.040 s", "none", "never", NotRecovered},
	}
	if tab.ID != "faults-hello" || tab.Title != "Recovery after faults (hello)" || fmt.Sprint(tab.Rows) != fmt.Sprint(want) {
		t.Errorf("table %s rows\n%v\nwant\n%v", tab.ID, tab.Rows, want)
	}
}

func TestWatchCounted(t *testing.T) {
	w := NewWatch(time.Now())
	s, _ := Parse("kill-sut@50%")
	struck := make(chan struct{})
	w.StartCounted(t.Context(), []Spec{s}, 10, func(_ context.Context, _ Spec, hit func()) error {
		close(struck)
		return nil
	})
	now := time.Now()
	for range 4 {
		w.Observe(now, now, 200, "")
	}
	select {
	case <-struck:
		t.Fatal("struck after 4 of 10")
	case <-time.After(20 * time.Millisecond):
	}
	w.Observe(now, now, 200, "")
	<-struck
	if err := w.Wait(); err != nil || len(w.Record(time.Second).Faults) != 1 {
		t.Errorf("Wait = %v, %+v", err, w.Record(time.Second))
	}
	// A run that ends before the count drops the fault.
	ctx, cancel := context.WithCancel(t.Context())
	w2 := NewWatch(time.Now())
	w2.StartCounted(ctx, []Spec{s}, 10, func(context.Context, Spec, func()) error { t.Error("struck"); return nil })
	cancel()
	if err := w2.Wait(); err != nil || len(w2.Record(time.Second).Faults) != 0 {
		t.Errorf("dropped: %v", err)
	}
}

func TestText(t *testing.T) {
	var b strings.Builder
	Text(&b, &result.Record{})
	if b.Len() != 0 {
		t.Errorf("a record without faults: %q", b.String())
	}
	at, took := result.Duration(2517*time.Millisecond), result.Duration(84*time.Millisecond)
	rec := &result.Record{}
	rec.SetSection(Key, &Record{Faults: []Event{{Fault: "kill-sut@50%", At: at, Took: took, InFlight: map[string]int64{"status": 113, "ok": 9}, Recovery: NotRecovered}},
		Statuses: map[string]int64{"502": 1349}})
	Text(&b, rec)
	want := "  Fault kill-sut@50% at 2.517 s (over after 0.084 s): in flight ok 9, status 113; not recovered\n  Answers outside 2xx: 502 1349\n"
	if b.String() != want {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}
}

func TestTooShort(t *testing.T) {
	start := time.Unix(1000, 0)
	tl := NewTimeline(start)
	steady(tl, start, 0, 5*time.Second, time.Millisecond)
	r := tl.Recover(4500*time.Millisecond, 5*time.Second)
	if !r.Short || r.Recovered >= 0 || r.FirstSuccess != time.Millisecond {
		t.Errorf("%+v: want a first success and too short a phase for a window", r)
	}
	e := NewEvent("kill-sut@90%", 4500*time.Millisecond, 0, r)
	if e.Recovery != TooShort || recovered(e) != "phase too short" {
		t.Errorf("event %+v", e)
	}
	if r := tl.RecoverFrom(time.Second, 4*time.Second, 5*time.Second); r.Short || r.Before != 1000 || r.Recovered != Window {
		t.Errorf("from 1 s: %+v", r)
	}
}

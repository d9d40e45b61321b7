package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/golden"
	"github.com/iobench/iobench/internal/result"
)

// withSUT is a crafted hello record whose impl cost cpu seconds for its operations and peaked at
// rss bytes.
func withSUT(impl, variant, load string, tp, cpu float64, rss uint64, ops int64, start int) *result.Record {
	r := crafted("hello", impl, "async", load, tp, 2000, start)
	r.Variant = variant
	r.Counts.Attempted, r.Counts.Succeeded = ops, ops
	r.Processes = []result.Process{
		{Name: "iobench", Role: "generator", CPUUser: 1, PeakRSS: 20 << 20},
		{Name: impl, Role: "sut", CPUUser: cpu * 0.75, CPUSystem: cpu * 0.25, PeakRSS: rss},
	}
	return r
}

// withThreads gives r's generator and SUT (withSUT's) their share of a core and the SUT its
// busiest threads, on a machine of 2 cores.
func withThreads(r *result.Record, gen, sut float64, threads ...float64) *result.Record {
	r.Environment.Cores = 2
	r.Processes[0].CPUPercent, r.Processes[0].HotThreads = gen, []float64{gen * 0.6, gen * 0.4}
	r.Processes[1].CPUPercent, r.Processes[1].HotThreads = sut, threads
	return r
}

// langRecords are two repeats each of a Go and a Python hello server, and of a variant that
// reproduces a seed flaw on purpose (its runs have errors). Go's runs saturate the CPU, the
// first Python run its one thread (the second not quite), the flawed variant nothing.
func langRecords() []*result.Record {
	flawed := func(start int) *result.Record {
		r := withSUT("php-react", "seed", "closed", 500, 1, 30<<20, 5000, start)
		r.Counts.Failed, r.Counts.Errors, r.Expect = 865, map[string]int64{"length": 865}, []string{"content-length-mismatch"}
		return withThreads(r, 10, 12, 12)
	}
	return []*result.Record{
		withThreads(withSUT("go-hello", "async", "closed", 100000, 1.0, 16<<20, 1000000, 1), 30, 165, 70, 65, 30),
		withThreads(withSUT("python-asyncio-hello", "async", "closed", 40000, 0.96, 22<<20, 400000, 2), 40, 98, 97),
		flawed(3),
		withThreads(withSUT("go-hello", "async", "closed", 110000, 1.2, 17<<20, 1100000, 4), 32, 160, 68, 66, 26),
		withThreads(withSUT("python-asyncio-hello", "async", "closed", 38000, 0.9, 23<<20, 380000, 5), 40, 81, 80),
		flawed(6),
		withThreads(withSUT("go-hello", "async", "open", 50000, 0.5, 16<<20, 500000, 7), 20, 75, 40, 35),
	}
}

// TestFlawExplainsOnlyItsErrors: a run of a variant that expects a seed flaw reproduced it only
// when every error it had is of a class the flaw explains and the flaw's signature is there;
// errors it does not explain leave a run that verified verified (its errors counted apart), and
// a run that failed its own check failed, whatever its errors.
func TestFlawExplainsOnlyItsErrors(t *testing.T) {
	r := withSUT("php-react", "seed", "closed", 500, 1, 30<<20, 5000, 1)
	r.Expect, r.Counts.Failed = []string{"content-length-mismatch"}, 10
	crashed := &result.Verification{Why: "impl php-react exited during the run"}
	for _, tc := range []struct {
		errs  map[string]int64
		check *result.Verification
		want  string
	}{
		{map[string]int64{"length": 10}, nil, StatusFlaw},
		{map[string]int64{"length": 5, "timeout": 5}, nil, StatusVerified},
		{map[string]int64{"read": 10}, nil, StatusVerified},
		{map[string]int64{"length": 10}, crashed, StatusFailed},
		{map[string]int64{"read": 10}, crashed, StatusFailed},
	} {
		r.Counts.Errors, r.Verification = tc.errs, tc.check
		if got := Status(r); got != tc.want {
			t.Errorf("errors %v, check %v: status %q, want %q", tc.errs, tc.check, got, tc.want)
		}
	}
}

// TestSideBySide checks the impls' cost and status: CPU per 1,000 operations is the median of
// the repeats, memory the highest peak, and errors of a variant that expects a seed flaw are that
// flaw reproduced.
func TestSideBySide(t *testing.T) {
	groups := Aggregate(langRecords())
	side := SideBySide(groups)
	if len(side) != 4 {
		t.Fatalf("%d rows, want 4", len(side))
	}
	got := map[string]Group{}
	for _, g := range side {
		got[g.Key.ImplLabel()+" "+g.Key.LoadModel] = g
	}
	goHello := got["go-hello closed"]
	if goHello.CPUPer1k.N != 2 || goHello.CPUPer1k.Median != 1045.4545454545455 || goHello.PeakRSS != 17<<20 || goHello.Status != StatusVerified {
		t.Errorf("go-hello closed: %+v", goHello)
	}
	seed := got["php-react:seed closed"]
	if seed.Status != StatusFlaw || seed.Verified || LatencyText(seed.CPUPer1k) != "200.00ms" || MemoryText(seed.PeakRSS) != "30.0 MiB" {
		t.Errorf("php-react:seed: %+v", seed)
	}
	if side[3].Key.LoadModel != "open" {
		t.Errorf("closed rows do not come first: %v", side[3].Key)
	}
	if len(SideBySide(Aggregate([]*result.Record{crafted("http", "x", "", "closed", 1, 1, 1)}))) != 0 {
		t.Error("a workload without a system under test is listed")
	}
}

func TestStatus(t *testing.T) {
	ok := crafted("hello", "go-hello", "async", "closed", 1, 1, 1)
	bad := crafted("hello", "go-hello", "async", "closed", 1, 1, 1)
	bad.Verification = &result.Verification{Why: "impl go-hello exited during the run"}
	resets := crafted("hello", "go-hello", "async", "closed", 1, 1, 1)
	resets.Counts.Failed, resets.Counts.Errors = 1, map[string]int64{"read": 1}
	flaw := crafted("hello", "php-react", "async", "closed", 1, 1, 1)
	flaw.Counts.Failed, flaw.Counts.Errors, flaw.Expect = 1, map[string]int64{"length": 1}, []string{"content-length-mismatch"}
	stopped := crafted("hello", "php-react", "async", "closed", 1, 1, 1)
	stopped.Counts.Failed, stopped.Expect, stopped.Interrupted = 1, []string{"no-keepalive"}, true
	for rec, want := range map[*result.Record]string{ok: StatusVerified, bad: StatusFailed, resets: StatusVerified, flaw: StatusFlaw, stopped: StatusFailed} {
		if got := Status(rec); got != want {
			t.Errorf("%s failed=%d expect=%v: %s, want %s", rec.Impl, rec.Counts.Failed, rec.Expect, got, want)
		}
	}
	if got := StatusText(StatusFlaw, flaw.Expect); got != "seed flaw reproduced (content-length-mismatch)" {
		t.Errorf("StatusText %q", got)
	}
}

func TestLangsGolden(t *testing.T) {
	var md, text bytes.Buffer
	if err := Markdown(&md, langRecords()); err != nil {
		t.Fatal(err)
	}
	if err := SummaryText(&text, langRecords()); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "summary-langs.md.golden"), md.Bytes())
	golden.Check(t, filepath.Join("testdata", "summary-langs.txt.golden"), text.Bytes())
	page := string(renderHTML(t, langRecords()))
	for _, want := range []string{"Impls side by side", `<span class="flaw">seed flaw reproduced (content-length-mismatch)</span>`, "1.05ms", "23.0 MiB",
		"What limited each run", "<td>mixed over 2 runs: python-asyncio-hello in 1, near saturation: python-asyncio-hello in 1 (each run&#39;s block says how)</td>",
		"<strong>Limit:</strong> python-asyncio-hello: its one busy thread at 97% of a core", `<td class="num">70% 65% 30%</td>`} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

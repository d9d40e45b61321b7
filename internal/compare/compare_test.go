package compare

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/capacity"
	"github.com/iobench/iobench/internal/result"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// recs makes one record per throughput value, with p50 = p50us, p99 = the matching p99s value
// (or 1000 µs), and errors failed of 1000 attempted.
func recs(impl string, tps []float64, p99s []float64, failed int64) []*result.Record {
	var out []*result.Record
	for i, tp := range tps {
		p99 := 1000.0
		if i < len(p99s) {
			p99 = p99s[i]
		}
		out = append(out, &result.Record{
			SchemaVersion: result.SchemaVersion, Workload: "hello", Impl: impl, Mode: "async", LoadModel: "closed",
			StartedAt:  time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC),
			Counts:     result.Counts{Attempted: 1000, Succeeded: 1000 - failed, Failed: failed},
			Throughput: result.Throughput{Unit: "req/s", Mean: tp},
			Latency: &result.Latency{Unit: "us", Count: 1000, Percentiles: []result.Percentile{
				{P: 50, Value: 100}, {P: 99, Value: p99}, {P: 99.9, Value: 2 * p99}}},
		})
	}
	return out
}

// withParam sets parameter k to v in every record of recs.
func withParam(recs []*result.Record, k string, v any) []*result.Record {
	for _, r := range recs {
		r.Parameters = map[string]any{k: v}
	}
	return recs
}

func TestMannWhitney(t *testing.T) {
	tests := []struct {
		name string
		a, b []float64
		want float64
	}{
		{"3+3 apart: the smallest p of 3+3", []float64{1, 2, 3}, []float64{4, 5, 6}, 0.1},
		{"3+3 reversed", []float64{4, 5, 6}, []float64{1, 2, 3}, 0.1},
		{"5+5 apart", []float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}, 2.0 / 252},
		{"3+3 interleaved", []float64{1, 3, 5}, []float64{2, 4, 6}, 0.7},
		{"4+4 apart", []float64{10, 11, 12, 13}, []float64{1, 2, 3, 4}, 2.0 / 70},
		{"all equal", []float64{7, 7, 7}, []float64{7, 7, 7}, 1},
		{"empty", nil, []float64{1}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MannWhitney(tt.a, tt.b); math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("p = %v, want %v", got, tt.want)
			}
		})
	}
	// With ties: the normal approximation, still clearly significant for well-separated samples.
	if p := MannWhitney([]float64{1, 1, 1, 1, 2, 2, 2, 2}, []float64{5, 5, 5, 5, 6, 6, 6, 6}); p <= 0 || p >= 0.01 {
		t.Errorf("tied samples apart: p = %v", p)
	}
	if p := MannWhitney([]float64{1, 2, 2, 3}, []float64{1, 2, 2, 3}); p < 0.9 {
		t.Errorf("tied identical samples: p = %v", p)
	}
}

func row(t *testing.T, tb Table, metric string) Row {
	t.Helper()
	for _, r := range tb.Rows {
		if r.Metric == metric {
			return r
		}
	}
	t.Fatalf("no %s row in\n%s", metric, tb)
	return Row{}
}

func TestCompareKnownSpreads(t *testing.T) {
	tests := []struct {
		name        string
		base, new   []*result.Record
		metric      string
		ratio       float64
		utest       bool
		significant bool
		verdict     string
	}{
		{"5+5 faster: U test, significant",
			recs("a", []float64{98, 99, 100, 101, 102}, nil, 0), recs("a", []float64{118, 119, 120, 121, 122}, nil, 0),
			Throughput, 1.2, true, true, "better (p=0.008 n=5+5)"},
		{"5+5 slower tail: worse",
			recs("a", []float64{1, 1, 1, 1, 1}, []float64{990, 1000, 1010, 1005, 995}, 0), recs("a", []float64{1, 1, 1, 1, 1}, []float64{1490, 1500, 1510, 1505, 1495}, 0),
			P99, 1.5, true, true, "worse (p=0.008 n=5+5)"},
		{"5+5 overlapping: not significant",
			recs("a", []float64{90, 95, 100, 105, 110}, nil, 0), recs("a", []float64{92, 97, 102, 107, 112}, nil, 0),
			Throughput, 1.02, true, false, "~ (p=0.690 n=5+5)"},
		{"3+3 apart: p=0.1 cannot pass α=0.05",
			recs("a", []float64{100, 101, 102}, nil, 0), recs("a", []float64{200, 201, 202}, nil, 0),
			Throughput, 201.0 / 101, true, false, "~ (p=0.100 n=3+3)"},
		{"2+2 overlapping ranges, allowed",
			recs("a", []float64{100, 110}, nil, 0), recs("a", []float64{105, 115}, nil, 0),
			Throughput, 110.0 / 105, false, false, "~ (judged anyway on few repeats (--allow-few): n=2+2, ranges overlap)"},
		{"1+1 apart, allowed",
			recs("a", []float64{100}, nil, 0), recs("a", []float64{90}, nil, 0),
			Throughput, 0.9, false, true, "worse (judged anyway on few repeats (--allow-few): n=1+1, ranges apart)"},
		{"errors from none, allowed", recs("a", []float64{1, 1}, nil, 0), recs("a", []float64{1, 1}, nil, 5),
			Errors, math.Inf(1), false, true, "worse (judged anyway on few repeats (--allow-few): n=2+2, ranges apart)"},
		{"no errors either side, allowed", recs("a", []float64{1}, nil, 0), recs("a", []float64{1}, nil, 0),
			Errors, 1, false, false, "~ (judged anyway on few repeats (--allow-few): n=1+1, ranges overlap)"},
		{"1+1: too few to tell", recs("a", []float64{100}, nil, 0), recs("a", []float64{100}, nil, 0),
			Throughput, 1, false, false, "too few repeats to tell (1 and 1)"},
		{"two setups", recs("a", []float64{100, 101, 102}, nil, 0), withParam(recs("a", []float64{50, 51, 52}, nil, 0), "rate", 20000),
			Throughput, 51.0 / 101, false, false, "setups differ: rate unset vs 20000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := row(t, Compare(tt.base, tt.new, Options{AllowFew: strings.HasSuffix(tt.name, "allowed")}), tt.metric)
			if math.Abs(r.Ratio-tt.ratio) > 1e-9 && !(math.IsInf(tt.ratio, 1) && math.IsInf(r.Ratio, 1)) {
				t.Errorf("ratio %v, want %v", r.Ratio, tt.ratio)
			}
			if r.UTest != tt.utest || r.Significant != tt.significant {
				t.Errorf("utest %v significant %v, want %v %v (p=%v)", r.UTest, r.Significant, tt.utest, tt.significant, r.P)
			}
			if got := Verdict(r); got != tt.verdict {
				t.Errorf("verdict %q, want %q", got, tt.verdict)
			}
		})
	}
}

func TestCompareGroups(t *testing.T) {
	// One group each side, different impls: compared with each other, on every metric but
	// capacity (no --find-max record).
	tb := Compare(recs("node", []float64{1}, nil, 0), recs("go", []float64{2}, nil, 0), Options{})
	if len(tb.Rows) != len(Metrics)-1 || tb.Rows[0].Group != "hello node async closed → hello go async closed" {
		t.Fatalf("rows %+v", tb.Rows)
	}
	// Two groups on one side: matched by key, the rest listed.
	base := append(recs("node", []float64{1}, nil, 0), recs("go", []float64{2}, nil, 0)...)
	tb = Compare(base, recs("go", []float64{3}, nil, 0), Options{})
	if len(tb.OnlyBase) != 1 || tb.OnlyBase[0] != "hello node async closed" || tb.Rows[0].Group != "hello go async closed" {
		t.Errorf("only base %v, rows %+v", tb.OnlyBase, tb.Rows[0])
	}
	// No latency on one side: no latency rows, the rest compared.
	nolat := recs("go", []float64{3}, nil, 0)
	nolat[0].Latency = nil
	tb = Compare(recs("go", []float64{2}, nil, 0), nolat, Options{})
	if tb.Covers(P99) || !tb.Covers(Throughput) || !tb.Covers(Errors) {
		t.Errorf("rows without latency: %+v", tb.Rows)
	}
}

func TestTableGolden(t *testing.T) {
	base := append(recs("go", []float64{98, 99, 100, 101, 102}, []float64{990, 1000, 1010, 1005, 995}, 0),
		recs("node", []float64{50, 51, 52}, nil, 0)...)
	newer := append(recs("go", []float64{118, 119, 120, 121, 122}, []float64{1490, 1500, 1510, 1505, 1495}, 1),
		recs("node", []float64{60, 61, 62}, nil, 0)...)
	newer = append(newer, recs("php", []float64{1}, nil, 0)...)
	var b bytes.Buffer
	if err := Compare(base, newer, Options{}).Write(&b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "table.golden")
	if *update {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("table differs from %s (go test -update rewrites it):\n%s", path, b.String())
	}
}

func TestThresholds(t *testing.T) {
	tests := []struct {
		in   string
		want Threshold
		err  string
	}{
		{"p99>+10%", Threshold{P99, ">", 10, "p99>+10%"}, ""},
		{"throughput<-5%", Threshold{Throughput, "<", -5, "throughput<-5%"}, ""},
		{" p99.9 > 2.5 % ", Threshold{P999, ">", 2.5, "p99.9 > 2.5 %"}, ""},
		{"errors>0%", Threshold{Errors, ">", 0, "errors>0%"}, ""},
		{"p99>10", Threshold{}, "write METRIC>CHANGE%"},
		{"p95>+10%", Threshold{}, `unknown metric "p95"`},
		{"throughput<-100%", Threshold{}, "above -100%"},
		{"p99=+10%", Threshold{}, "write METRIC"},
		{"", Threshold{}, "write METRIC"},
	}
	for _, tt := range tests {
		got, err := ParseThreshold(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseThreshold(%q) error %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseThreshold(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}

	tb := Compare(recs("go", []float64{98, 99, 100, 101, 102}, []float64{990, 1000, 1010, 1005, 995}, 0),
		recs("go", []float64{93, 94, 95, 96, 97}, []float64{1090, 1100, 1110, 1105, 1095}, 0), Options{})
	check := func(s string) []Violation {
		th, err := ParseThreshold(s)
		if err != nil {
			t.Fatal(err)
		}
		return Check(tb, []Threshold{th})
	}
	if v := check("p99>+10%"); len(v) != 0 {
		t.Errorf("p99 grew exactly 10%%: %v", v)
	}
	if v := check("p99>+5%"); len(v) != 1 || !strings.Contains(v[0].String(), "p99 +10.0% > +5% (p=0.008 n=5+5)") {
		t.Errorf("p99>+5%%: %v", v)
	}
	if v := check("throughput<-5%"); len(v) != 0 {
		t.Errorf("throughput fell exactly 5%%: %v", v)
	}
	if v := check("throughput<-4%"); len(v) != 1 {
		t.Errorf("throughput<-4%%: %v", v)
	}
}

// FuzzParseThreshold: never panics; what it accepts prints back to itself.
func FuzzParseThreshold(f *testing.F) {
	for _, s := range []string{"p99>+10%", "throughput<-5%", "errors>0%", "p99.9 < 1.5%", "x", "p50>-99.99%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		th, err := ParseThreshold(s)
		if err != nil {
			return
		}
		again, err := ParseThreshold(th.String())
		if err != nil || again != th {
			t.Fatalf("%q -> %+v -> %q -> %+v, %v", s, th, th.String(), again, err)
		}
	})
}

// TestCompareLeavesOutUnverified: a run that failed its own check is in no figure of compare,
// and the table names it.
func TestCompareLeavesOutUnverified(t *testing.T) {
	base := recs("go", []float64{100, 101, 102}, nil, 0)
	fresh := recs("go", []float64{100, 101, 5}, nil, 0)
	fresh[2].Verification = &result.Verification{Why: "impl go exited during the run"}
	tb := Compare(base, fresh, Options{})
	if tb.Rows[0].Metric != Throughput || tb.Rows[0].New.N != 2 || tb.Rows[0].New.Min != 100 {
		t.Fatalf("throughput row %+v: the failed run counts", tb.Rows[0])
	}
	var b bytes.Buffer
	if err := tb.Write(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "left out, not verified: new: hello go at 00:00:02 (impl go exited during the run)") {
		t.Errorf("the table does not name the run left out:\n%s", b.String())
	}
}

// withCapacity gives each record a --find-max section whose answer is the matching rate.
func withCapacity(recs []*result.Record, rates ...float64) []*result.Record {
	for i, r := range recs {
		c := &capacity.Record{Bound: capacity.Service, MaxSustainableRate: &rates[i]}
		r.SetSection(capacity.Key, c)
	}
	return recs
}

// TestCompareCapacity: the max sustainable rates of --find-max records are compared, higher
// is better, and 'capacity<-10%' fails when they fell by more.
func TestCompareCapacity(t *testing.T) {
	base := withCapacity(recs("go", []float64{1, 1, 1}, nil, 0), 20000, 20100, 19900)
	fell := withCapacity(recs("go", []float64{1, 1, 1}, nil, 0), 16000, 16100, 15900)
	th, err := ParseThreshold("capacity<-10%")
	if err != nil {
		t.Fatal(err)
	}
	tb := Compare(base, fell, Options{})
	var row *Row
	for i := range tb.Rows {
		if tb.Rows[i].Metric == Capacity {
			row = &tb.Rows[i]
		}
	}
	if row == nil || !row.HigherIsBetter || !row.Worse() || row.Unit != "req/s" || math.Abs(row.Delta()+0.2) > 1e-9 {
		t.Fatalf("capacity row %+v: want -20%%, worse, in req/s", row)
	}
	if v := Check(tb, []Threshold{th}); len(v) != 1 || !strings.Contains(v[0].String(), "capacity") {
		t.Errorf("violations %v: want capacity<-10%% crossed", v)
	}
	if v := Check(Compare(base, base, Options{}), []Threshold{th}); len(v) != 0 {
		t.Errorf("violations %v of the same capacities", v)
	}
}

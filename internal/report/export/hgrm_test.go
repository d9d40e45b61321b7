package export_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/fail"
	"github.com/iobench/iobench/internal/report/export"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/stats"
)

// hgrmRow is one data line of a percentile distribution.
type hgrmRow struct {
	value      float64 // milliseconds
	percentile float64 // 0-1, printed to 6 decimals
	count      int64
	inverse    string // 1/(1-Percentile), "inf" at 100%
}

// hgrm is a percentile distribution read back as HdrHistogram's plotter reads it: a line that
// does not begin with '#' and splits on spaces into four fields whose first and fourth are
// numbers is a point; plus the footer's figures.
type hgrm struct {
	comments            []string
	rows                []hgrmRow
	plotted             int // rows the plotter draws (the 100% row's "inf" is not a number)
	mean, stdev, max    float64
	total               int64
	buckets, subBuckets int
	columns             string
}

func parseHGRM(t *testing.T, text string) hgrm {
	t.Helper()
	var h hgrm
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "":
		case strings.HasPrefix(line, "#[Mean"):
			mustScan(t, line, "#[Mean    = %f, StdDeviation   = %f]", &h.mean, &h.stdev)
		case strings.HasPrefix(line, "#[Max"):
			mustScan(t, line, "#[Max     = %f, Total count    = %d]", &h.max, &h.total)
		case strings.HasPrefix(line, "#[Buckets"):
			mustScan(t, line, "#[Buckets = %d, SubBuckets     = %d]", &h.buckets, &h.subBuckets)
		case strings.HasPrefix(line, "#"):
			h.comments = append(h.comments, line)
		case strings.HasPrefix(line, "Value"):
			h.columns = strings.Join(strings.Fields(line), " ")
		default:
			h.rows = append(h.rows, parseRow(t, line))
			if h.rows[len(h.rows)-1].inverse != "inf" {
				h.plotted++
			}
		}
	}
	return h
}

func parseRow(t *testing.T, line string) hgrmRow {
	t.Helper()
	f := strings.Split(line, " ")
	var fields []string
	for _, s := range f {
		if s != "" {
			fields = append(fields, s)
		}
	}
	if len(fields) != 4 {
		t.Fatalf("line %q: %d space-separated fields, the plotter wants 4", line, len(fields))
	}
	v, err1 := strconv.ParseFloat(fields[0], 64)
	p, err2 := strconv.ParseFloat(fields[1], 64)
	n, err3 := strconv.ParseInt(fields[2], 10, 64)
	if err := errors.Join(err1, err2, err3); err != nil {
		t.Fatalf("line %q: %v", line, err)
	}
	return hgrmRow{value: v, percentile: p, count: n, inverse: fields[3]}
}

func mustScan(t *testing.T, line, format string, args ...any) {
	t.Helper()
	if _, err := fmt.Sscanf(line, format, args...); err != nil {
		t.Fatalf("footer line %q: %v", line, err)
	}
}

// printSlack is half the last printed digit of a percentile (6 decimals).
const printSlack = 5e-7

// checkHGRM compares every row of the printed distribution with the histogram it came from.
func checkHGRM(t *testing.T, got hgrm, h *stats.Histogram) {
	t.Helper()
	n := h.Count()
	if len(got.rows) < 20 || got.plotted != len(got.rows)-1 {
		t.Fatalf("%d rows, %d of them plotted; want a spectrum with only the 100%% row unplotted", len(got.rows), got.plotted)
	}
	for i, r := range got.rows {
		us := math.Round(r.value * 1000)
		if math.Abs(r.value*1000-us) > 1e-6 {
			t.Errorf("row %d: %.6f ms is not a whole microsecond", i, r.value)
		}
		// The value is the histogram's value at the share of samples at or below it...
		if want := h.Quantile(100 * float64(r.count) / float64(n)); us != want {
			t.Errorf("row %d (%+v): %v µs, but ValueAtQuantile(%d/%d) is %v µs", i, r, us, r.count, n, want)
		}
		// ...and that share reaches the printed percentile, whose own value is not above it.
		if float64(r.count)/float64(n) < r.percentile-printSlack {
			t.Errorf("row %d (%+v): %d of %d samples do not reach percentile %v", i, r, r.count, n, r.percentile)
		}
		if q := h.Quantile(100 * (r.percentile - printSlack)); q > us {
			t.Errorf("row %d (%+v): ValueAtQuantile(%v) = %v µs, above the printed %v µs", i, r, r.percentile, q, us)
		}
		checkInverse(t, i, r)
		if i > 0 && (r.percentile < got.rows[i-1].percentile || r.value < got.rows[i-1].value) {
			t.Errorf("row %d (%+v) goes back from %+v", i, r, got.rows[i-1])
		}
	}
	last := got.rows[len(got.rows)-1]
	if last.percentile != 1 || last.count != n || math.Round(last.value*1000) != h.Max() {
		t.Errorf("last row %+v; want 100%% of %d samples at the max %v µs", last, n, h.Max())
	}
	if got.total != n || math.Abs(got.max*1000-h.Max()) > 0.5 || math.Abs(got.mean*1000-h.Mean()) > 0.5 ||
		math.Abs(got.stdev*1000-h.Stdev()) > 0.5 || got.buckets == 0 || got.subBuckets != 2048 {
		t.Errorf("footer %+v; histogram count %d max %v mean %v stdev %v", got, n, h.Max(), h.Mean(), h.Stdev())
	}
	if got.columns != "Value Percentile TotalCount 1/(1-Percentile)" {
		t.Errorf("column line %q", got.columns)
	}
}

// checkInverse checks the 1/(1-Percentile) column against the percentile (printed to 2 decimals).
func checkInverse(t *testing.T, i int, r hgrmRow) {
	t.Helper()
	if r.percentile == 1 {
		if r.inverse != "inf" {
			t.Errorf("row %d: 1/(1-1) printed as %q, want inf", i, r.inverse)
		}
		return
	}
	inv, err := strconv.ParseFloat(r.inverse, 64)
	if err != nil || math.Abs(1-1/inv-r.percentile) > printSlack+0.005/(inv*inv)+1e-12 {
		t.Errorf("row %d: 1/(1-%v) printed as %q", i, r.percentile, r.inverse)
	}
}

func TestHGRMOfALiveRunReadsBack(t *testing.T) {
	rec := liveRecord(t)
	for _, which := range export.Histograms {
		t.Run(string(which), func(t *testing.T) {
			var b bytes.Buffer
			if err := export.HGRM(&b, rec, which); err != nil {
				t.Fatal(err)
			}
			l := map[export.Histogram]*result.Latency{export.Latency: rec.Latency, export.Uncorrected: rec.Uncorrected, export.Lag: rec.ScheduleLag}[which]
			h, err := stats.Decode(l)
			if err != nil {
				t.Fatal(err)
			}
			got := parseHGRM(t, b.String())
			checkHGRM(t, got, h)
			if len(got.comments) != 1 || !strings.Contains(got.comments[0], "hello go-hello async open") ||
				!strings.Contains(got.comments[0], "in milliseconds") {
				t.Errorf("comment lines %q; want one naming the run and the unit", got.comments)
			}
			// The record's own summary (what the text report prints) agrees with the spectrum's end.
			if math.Round(got.rows[len(got.rows)-1].value*1000) != l.At(100) {
				t.Errorf("100%% row %v ms, the record's max %v µs", got.rows[len(got.rows)-1].value, l.At(100))
			}
		})
	}
}

func TestHGRMOfABusRun(t *testing.T) {
	rec := savedRecord(t, "bus-sync-1.json")
	var b bytes.Buffer
	if err := export.HGRM(&b, rec, export.Latency); err != nil {
		t.Fatal(err)
	}
	h, err := stats.Decode(rec.Latency)
	if err != nil {
		t.Fatal(err)
	}
	checkHGRM(t, parseHGRM(t, b.String()), h)
}

func TestHGRMWithoutTheHistogram(t *testing.T) {
	closed := savedRecord(t, "hello-closed-1.json")
	noHDR := savedRecord(t, "hello-closed-1.json")
	noHDR.Latency.Histogram = ""
	publish := &result.Record{Workload: "publish"}
	empty := &result.Record{Workload: "http", Latency: &result.Latency{Unit: "us"}}
	tests := []struct {
		name  string
		rec   *result.Record
		which export.Histogram
		want  string
	}{
		{"closed loop, uncorrected", closed, export.Uncorrected, "only an open-loop run (-R) records one"},
		{"closed loop, lag", closed, export.Lag, "no lag histogram"},
		{"no latency at all", publish, export.Latency, "this publish record has no latency histogram; use --format csv or openmetrics"},
		{"percentiles only", noHDR, export.Latency, "not the histogram itself"},
		{"no samples", empty, export.Latency, "holds no samples"},
		{"unknown histogram", closed, "p99", `no histogram "p99"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			err := export.HGRM(&b, tt.rec, tt.which)
			if !errors.Is(err, fail.ErrBadInput) || !strings.Contains(err.Error(), tt.want) || b.Len() > 0 {
				t.Errorf("error %v, %d bytes written; want bad input with %q and nothing written", err, b.Len(), tt.want)
			}
		})
	}
}

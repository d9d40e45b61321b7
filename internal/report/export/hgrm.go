package export

import (
	"fmt"
	"io"

	"github.com/iobench/iobench/internal/fail"
	"github.com/iobench/iobench/internal/report"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/stats"
)

// Histogram names one of a record's latency histograms.
type Histogram string

// The histograms a record can hold. An open loop (-R) records all three; a closed loop and the
// message workloads only Latency.
const (
	Latency     Histogram = "latency"     // in an open loop, from each request's intended start
	Uncorrected Histogram = "uncorrected" // open loop: from the actual send
	Lag         Histogram = "lag"         // open loop: actual send minus intended start
)

// Histograms lists every Histogram, in the order help texts name them.
var Histograms = []Histogram{Latency, Uncorrected, Lag}

// HGRMTicks is the number of points per halving of the distance to 100%, as wrk2 prints them.
const HGRMTicks = 5

// hgrmScale turns the record's microseconds into the milliseconds wrk2 prints and the plotter
// assumes by default; three decimals keep every microsecond.
const hgrmScale = 1000

// HGRM writes one of rec's latency histograms as HdrHistogram's percentile distribution in
// milliseconds, after one comment line saying what it is (the plotter skips lines that begin
// with '#'). A record without that histogram is bad input.
func HGRM(w io.Writer, rec *result.Record, which Histogram) error {
	l, what, err := histogramOf(rec, which)
	if err != nil {
		return err
	}
	h, err := stats.Decode(l)
	if err != nil {
		return fail.BadInput("the record's %s histogram cannot be decoded: %v", which, err)
	}
	if _, err := fmt.Fprintf(w, "# iobench %s: %s, in milliseconds\n", report.KeyOf(rec), what); err != nil {
		return err
	}
	return h.PrintPercentiles(w, HGRMTicks, hgrmScale)
}

// histogramOf returns the latency summary named which, with a description for the comment line.
func histogramOf(rec *result.Record, which Histogram) (*result.Latency, string, error) {
	var l *result.Latency
	var what string
	switch which {
	case Latency:
		l, what = rec.Latency, "latency"
		if rec.LoadModel == "open" {
			what = "latency from each request's intended start"
		}
	case Uncorrected:
		l, what = rec.Uncorrected, "uncorrected latency (from the actual send)"
	case Lag:
		l, what = rec.ScheduleLag, "schedule lag (actual send minus intended start)"
	default:
		return nil, "", fail.BadInput("no histogram %q; choose one of %v", which, Histograms)
	}
	switch {
	case l == nil && which != Latency:
		return nil, "", fail.BadInput("this %s record has no %s histogram: only an open-loop run (-R) records one", rec.Workload, which)
	case l == nil:
		return nil, "", fail.BadInput("this %s record has no latency histogram; use --format csv or openmetrics", rec.Workload)
	case l.Count == 0:
		return nil, "", fail.BadInput("the record's %s histogram holds no samples", which)
	case l.Histogram == "":
		return nil, "", fail.BadInput("the record keeps %s percentiles but not the histogram itself; re-run with this iobench", which)
	}
	return l, what, nil
}

package workload

import (
	"sort"

	"github.com/iobench/iobench/internal/result"
)

// FigureFunc reads one figure of a record; false when the record has none.
type FigureFunc func(rec *result.Record) (float64, bool)

// commonFigures are the figures of every record, by name, that a verdict's claim may compare:
// throughput (the mean rate of successes), answered (every response per second, flawed ones
// included: what wrk counts), p50 and p99 (latency, microseconds).
var commonFigures = map[string]FigureFunc{
	"throughput": func(r *result.Record) (float64, bool) { return r.Throughput.Mean, true },
	"answered":   answered,
	"p50":        func(r *result.Record) (float64, bool) { return latencyAt(r, 50) },
	"p99":        func(r *result.Record) (float64, bool) { return latencyAt(r, 99) },
}

// FlawedClasses are the error classes of a response that arrived but was wrong (its status, its
// body's length or its content): wrk counts such a response as a request done.
var FlawedClasses = []string{"status", "length", "expect"}

// answered is a record's responses per second with the flawed ones included, where
// Throughput.Mean counts successes only; none without a measured duration.
func answered(r *result.Record) (float64, bool) {
	d := r.Duration.Seconds()
	if d <= 0 {
		return 0, false
	}
	n := r.Counts.Succeeded
	for _, c := range FlawedClasses {
		n += r.Counts.Errors[c]
	}
	return float64(n) / d, true
}

func latencyAt(r *result.Record, p float64) (float64, bool) {
	if r.Latency == nil || r.Latency.Count == 0 {
		return 0, false
	}
	return r.Latency.At(p), true
}

// Figure returns the figure called name of rec: a common one, else one its workload registers
// (Workload.Figures).
func Figure(rec *result.Record, name string) (float64, bool) {
	if f, ok := commonFigures[name]; ok {
		return f(rec)
	}
	if w, ok := registry[rec.Workload]; ok {
		if f, ok := w.Figures[name]; ok {
			return f(rec)
		}
	}
	return 0, false
}

// figureNames returns the figures a record of w has, sorted: the common ones and w's own.
func figureNames(w Workload) []string {
	var out []string
	for n := range commonFigures {
		out = append(out, n)
	}
	for n := range w.Figures {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

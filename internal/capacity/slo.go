package capacity

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// SLO is one objective: a latency percentile (from the intended start) below a limit, or the
// share of errors below a percentage.
type SLO struct {
	Metric string        // p50, p99, p99.9, max or errors
	Limit  time.Duration // latency metrics
	Pct    float64       // errors: percent of the step's requests
}

// latencyMetrics are the latency metrics an SLO may name, by their percentile (max is 100).
var latencyMetrics = map[string]float64{"p50": 50, "p99": 99, "p99.9": 99.9, "max": 100}

// ParseSLO reads "p99<20ms", "p99.9 < 100ms", "max<1s" or "errors<0.1%"; an error is one line
// saying what is wrong and what to give.
func ParseSLO(text string) (SLO, error) {
	metric, limit, ok := strings.Cut(strings.ReplaceAll(text, " ", ""), "<")
	if !ok || metric == "" || limit == "" {
		return SLO{}, fmt.Errorf("--slo %q: write METRIC<LIMIT, e.g. 'p99<20ms' or 'errors<0.1%%'", text)
	}
	metric = strings.ToLower(metric)
	if metric == "errors" {
		pct, err := strconv.ParseFloat(strings.TrimSuffix(limit, "%"), 64)
		if !strings.HasSuffix(limit, "%") || err != nil || pct <= 0 || pct > 100 {
			return SLO{}, fmt.Errorf("--slo %q: errors take a percentage above 0 and at most 100, e.g. 'errors<0.1%%'", text)
		}
		return SLO{Metric: metric, Pct: pct}, nil
	}
	if _, ok := latencyMetrics[metric]; !ok {
		return SLO{}, fmt.Errorf("--slo %q: %q is not a metric; use p50, p99, p99.9, max or errors", text, metric)
	}
	d, err := time.ParseDuration(limit)
	if err != nil || d <= 0 {
		return SLO{}, fmt.Errorf("--slo %q: %q is not a positive duration; give one with its unit, e.g. 'p99<20ms'", text, limit)
	}
	return SLO{Metric: metric, Limit: d}, nil
}

// String is the SLO as ParseSLO reads it: "p99<20ms", "errors<0.1%".
func (s SLO) String() string {
	if s.Metric == "errors" {
		return "errors<" + strconv.FormatFloat(s.Pct, 'f', -1, 64) + "%"
	}
	return s.Metric + "<" + s.Limit.String()
}

// Latencies are a step's percentiles of latency, and its mean.
type Latencies struct {
	P50, P99, P999, Max, Mean time.Duration
}

// at returns the percentile a latency metric names.
func (l Latencies) at(metric string) time.Duration {
	switch metric {
	case "p50":
		return l.P50
	case "p99":
		return l.P99
	case "p99.9":
		return l.P999
	}
	return l.Max
}

// value is what r measured of the SLO's metric, in words ("7.9 ms", "0.02%"), and whether the
// SLO holds, on the latency from the intended start (service false) or from the send (true).
func (s SLO) value(r StepResult, service bool) (string, bool) {
	if s.Metric == "errors" {
		pct := errorPct(r)
		return strconv.FormatFloat(round(pct, 3), 'f', -1, 64) + "%", pct < s.Pct
	}
	l := r.Latency
	if service {
		l = r.Service
	}
	v := l.at(s.Metric)
	return millis(v), v < s.Limit
}

// tightest returns the smallest latency limit of slos, 0 when none is on latency.
func tightest(slos []SLO) time.Duration {
	var d time.Duration
	for _, s := range slos {
		if s.Metric != "errors" && (d == 0 || s.Limit < d) {
			d = s.Limit
		}
	}
	return d
}

func errorPct(r StepResult) float64 {
	if r.Requests == 0 {
		return 0
	}
	return 100 * float64(r.Errors) / float64(r.Requests)
}

// millis writes d in milliseconds with three significant digits: "7.9 ms", "0.412 ms", "125 ms".
func millis(d time.Duration) string {
	ms := float64(d) / float64(time.Millisecond)
	if ms >= 1000 {
		return strconv.FormatFloat(ms/1000, 'g', 3, 64) + " s"
	}
	if ms >= 100 {
		return strconv.FormatFloat(ms, 'f', 0, 64) + " ms"
	}
	return strconv.FormatFloat(ms, 'g', 3, 64) + " ms"
}

func round(v float64, digits int) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', digits, 64), 64)
	return f
}

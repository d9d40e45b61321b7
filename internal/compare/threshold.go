package compare

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Threshold is a limit on the change of one metric, as --fail-if takes it: "p99>+10%" fails
// when the p99 median grew by more than 10%, "throughput<-5%" when throughput fell by more
// than 5%.
type Threshold struct {
	Metric  string  // one of Metrics
	Op      string  // ">" or "<"
	Percent float64 // signed change in percent: +10, -5
	Written string  // the threshold as the user wrote it, spaces trimmed ("" when built in code)
}

// String returns the threshold as the user wrote it ("p99>+10%"), so that a report names it as
// the command line did; one built in code in the form ParseThreshold reads.
func (th Threshold) String() string {
	if th.Written != "" {
		return th.Written
	}
	return th.Metric + th.Op + strconv.FormatFloat(th.Percent, 'f', -1, 64) + "%"
}

var thresholdRe = regexp.MustCompile(`^\s*([a-z0-9.]+)\s*([<>])\s*([+-]?[0-9]+(?:\.[0-9]+)?)\s*%\s*$`)

// ParseThreshold reads METRIC OP CHANGE%: a metric (throughput, p50, p99, p99.9, errors, capacity), > or
// <, and a signed percentage, e.g. "p99>+10%", "throughput<-5%", "errors>0%".
func ParseThreshold(s string) (Threshold, error) {
	m := thresholdRe.FindStringSubmatch(s)
	if m == nil {
		return Threshold{}, fmt.Errorf("threshold %q: write METRIC>CHANGE%% or METRIC<CHANGE%%, e.g. 'p99>+10%%' or 'throughput<-5%%'", s)
	}
	th := Threshold{Metric: m[1], Op: m[2], Written: strings.TrimSpace(s)}
	known := false
	for _, k := range Metrics {
		known = known || k == th.Metric
	}
	if !known {
		return Threshold{}, fmt.Errorf("threshold %q: unknown metric %q; use one of %s", s, th.Metric, strings.Join(Metrics, ", "))
	}
	v, err := strconv.ParseFloat(m[3], 64)
	if err != nil || math.IsInf(v, 0) || v <= -100 {
		return Threshold{}, fmt.Errorf("threshold %q: the change must be a percentage above -100%%", s)
	}
	th.Percent = v
	return th, nil
}

// Violation is a threshold crossed by one group.
type Violation struct {
	Threshold Threshold
	Row       Row
}

// String says what crossed which limit: "hello go-hello async open: p99 +14.2% > +10% (p=0.008
// n=5+5)", with "; within the spread of the repeats" when the change is not significant.
func (v Violation) String() string {
	sure := ""
	if !v.Row.Significant {
		sure = "; within the spread of the repeats"
	}
	return fmt.Sprintf("%s: %s %s %s %+g%% (%s%s)", v.Row.Group, v.Row.Metric, DeltaText(v.Row), v.Threshold.Op,
		v.Threshold.Percent, Evidence(v.Row), sure)
}

// Check returns the rows whose change of the medians crosses a threshold. A change within the
// spread of the repeats still counts (the threshold is the tolerance); Row.Significant tells the
// reader how sure it is.
func Check(t Table, ths []Threshold) []Violation {
	var out []Violation
	for _, o := range Outcomes(t, ths) {
		out = append(out, o.Crossed...)
	}
	return out
}

// Outcome is what one threshold found: the rows of its metric it checked, those that crossed
// it, and those it could not judge (Row.Unjudged: too few repeats, or two setups).
type Outcome struct {
	Threshold Threshold
	Checked   []Row
	Crossed   []Violation
	Unjudged  []Row
}

// Outcomes checks each threshold against the rows of its metric, in the order given.
func Outcomes(t Table, ths []Threshold) []Outcome {
	out := make([]Outcome, len(ths))
	for i, th := range ths {
		out[i].Threshold = th
		for _, r := range t.Rows {
			if r.Metric != th.Metric {
				continue
			}
			out[i].Checked = append(out[i].Checked, r)
			if r.Unjudged != "" {
				out[i].Unjudged = append(out[i].Unjudged, r)
				continue
			}
			if th.crossed(r) {
				out[i].Crossed = append(out[i].Crossed, Violation{Threshold: th, Row: r})
			}
		}
	}
	return out
}

// crossed says whether the change of r's medians crosses th.
func (th Threshold) crossed(r Row) bool {
	d := math.Round(100*r.Delta()*1e6) / 1e6 // 1100/1000 is a 10% change, not 10.000000000000009%
	return (th.Op == ">" && d > th.Percent) || (th.Op == "<" && d < th.Percent)
}

// Covers says whether the table has rows of the metric, so a threshold can be checked at all.
func (t Table) Covers(metric string) bool {
	for _, r := range t.Rows {
		if r.Metric == metric {
			return true
		}
	}
	return false
}

package export

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/iobench/iobench/internal/fail"
	"github.com/iobench/iobench/internal/result"
)

// Run is one record with the name that sets it apart from the other runs of an exposition (the
// record's file name without .json).
type Run struct {
	Name   string
	Record *result.Record
}

// OpenMetrics writes runs as one OpenMetrics text exposition (ends with "# EOF"): each metric
// family once, with HELP, TYPE and UNIT, a sample per run (and per error class, quantile or
// process) labelled with run, workload, impl, variant, mode, load_model, case and target (the
// empty ones left out). Counters end in _total, units are seconds and bytes, latencies are
// summaries with the record's quantiles (0.5 to 1). No sample has a timestamp, so a Pushgateway
// takes the text too (it reads it as Prometheus text 0.0.4: the same series, counters untyped).
// Two runs with the same labels are bad input.
func OpenMetrics(w io.Writer, runs []Run) error {
	var b bytes.Buffer
	seen := map[string]bool{}
	for _, f := range families {
		var lines []string
		for _, run := range runs {
			base := runLabels(run)
			for _, s := range f.samples(run.Record) {
				series := f.name + s.suffix + labelText(append(base, s.labels...))
				if seen[series] {
					return fail.BadInput("two records give the series %s; give each run a file name of its own", series)
				}
				seen[series] = true
				lines = append(lines, series+" "+omFloat(s.value))
			}
		}
		if len(lines) == 0 {
			continue
		}
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n", f.name, f.help, f.name, f.typ)
		if f.unit != "" {
			fmt.Fprintf(&b, "# UNIT %s %s\n", f.name, f.unit)
		}
		b.WriteString(strings.Join(lines, "\n") + "\n")
	}
	b.WriteString("# EOF\n")
	_, err := w.Write(b.Bytes())
	return err
}

// label is one label pair.
type label struct{ name, value string }

// runLabels are the labels that tell a run apart, without the empty ones (which OpenMetrics
// treats as absent).
func runLabels(run Run) []label {
	r := run.Record
	all := []label{{"run", run.Name}, {"workload", r.Workload}, {"impl", r.Impl}, {"variant", r.Variant},
		{"mode", r.Mode}, {"load_model", r.LoadModel}, {"case", r.Case}, {"target", r.Target}}
	out := all[:0]
	for _, l := range all {
		if l.value != "" {
			out = append(out, l)
		}
	}
	return out
}

// labelText renders labels as {a="x",b="y"}, escaping backslash, quote and newline.
func labelText(ls []label) string {
	if len(ls) == 0 {
		return ""
	}
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = l.name + `="` + labelEscaper.Replace(l.value) + `"`
	}
	return "{" + strings.Join(parts, ",") + "}"
}

var labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

// omFloat formats a sample value: the shortest decimal that reads back as v, without an exponent
// where the value is of a usual size, or NaN, +Inf, -Inf.
func omFloat(v float64) string {
	switch a := math.Abs(v); {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case a != 0 && (a < 1e-6 || a >= 1e21):
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// quantileText formats percentile p (0-100) as a quantile label value in canonical form: "0.5",
// "0.999", "1.0". Twelve digits drop the binary noise of p/100 (99.9/100 is 0.9990000000000001).
func quantileText(p float64) string {
	s := strconv.FormatFloat(p/100, 'g', 12, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

package textblock

import (
	"fmt"
	"io"
	"strings"

	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/limit"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/units"
)

// TextOptions choose what the text block shows.
type TextOptions struct {
	Latency bool // the latency distribution (wrk's --latency); always shown for an open loop
}

// HTTP writes rec in wrk's layout: header, Thread Stats, distribution, totals, errors, rates,
// then iobench's additions (open-loop views, cost, warnings).
func HTTP(w io.Writer, rec *result.Record, opt TextOptions) {
	p := &printer{w: w}
	header(p, rec)
	threadStats(p, rec)
	if opt.Latency || rec.LoadModel == "open" { // the open loop exists to show the distribution
		distribution(p, rec)
	}
	totals(p, rec)
	handshakes(p, rec)
	cost(p, rec)
	warnings(p, rec)
}

type printer struct{ w io.Writer }

func (p *printer) f(format string, args ...any) { fmt.Fprintf(p.w, format, args...) }

func header(p *printer, rec *result.Record) {
	what := fmt.Sprintf("%s test", durText(rec))
	if n, ok := rec.Parameters["requests"].(int64); ok && n > 0 {
		what = fmt.Sprintf("%s requests test", units.Count(n))
	}
	model := "closed loop"
	if rec.LoadModel == "open" {
		model = fmt.Sprintf("open loop at %s req/s", units.Count(int64(rec.Throughput.TargetRate)))
		if rec.Parameters["arrivals"] == engine.ArrivalsPoisson {
			model += ", Poisson arrivals"
		}
	}
	p.f("Running %s @ %s (%s)\n", what, rec.Target, model)
	p.f("  %v threads and %v connections%s\n", rec.Parameters["threads"], rec.Parameters["connections"], depthText(rec))
}

// depthText says how many requests each connection keeps in flight, when more than one:
// ", h2c with 100 streams each", ", 16 requests pipelined on each".
func depthText(rec *result.Record) string {
	if h := rec.HTTP2; h != nil {
		return fmt.Sprintf(", %s with %d streams each", h.Protocol, h.Streams)
	}
	switch n := rec.Parameters["pipeline"].(type) {
	case int:
		return fmt.Sprintf(", %d requests pipelined on each", n)
	case float64:
		return fmt.Sprintf(", %.0f requests pipelined on each", n)
	}
	return ""
}

func durText(rec *result.Record) string {
	if d, ok := rec.Parameters["duration"].(string); ok {
		return d
	}
	return rec.Duration.Std().String()
}

func threadStats(p *printer, rec *result.Record) {
	p.f("  Thread Stats   Avg      Stdev     Max   +/- Stdev\n")
	if l := rec.Latency; l != nil && l.Count > 0 {
		p.f("    Latency %10s %9s %9s %8.2f%%\n", units.Micros(l.Mean), units.Micros(l.Stdev), units.Micros(l.Max), l.WithinStdev)
	}
	if r := rec.ThreadRate; r != nil {
		p.f("    Req/Sec %10s %9s %9s %8.2f%%\n", metric(r.Mean), metric(r.Stdev), metric(r.Max), r.WithinStdev)
	}
}

// metric formats like wrk's format_metric: 56.20k, 1.23M.
func metric(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.2fM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.2fk", v/1e3)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

func distribution(p *printer, rec *result.Record) {
	l := rec.Latency
	if l == nil || l.Count == 0 {
		return
	}
	if rec.LoadModel != "open" {
		p.f("  Latency Distribution\n")
		for _, q := range l.Percentiles {
			p.f("  %7s  %9s\n", pctLabel(q.P), units.Micros(q.Value))
		}
		return
	}
	p.f("  Latency Distribution (corrected: from intended start | uncorrected: from send | schedule lag)\n")
	for _, q := range l.Percentiles {
		p.f("  %7s  %9s  | %9s  | %9s\n", pctLabel(q.P), units.Micros(q.Value),
			units.Micros(rec.Uncorrected.At(q.P)), units.Micros(rec.ScheduleLag.At(q.P)))
	}
}

func pctLabel(p float64) string {
	if p == 100 {
		return "max"
	}
	return strings.TrimSuffix(fmt.Sprintf("%g", p), ".0") + "%"
}

func totals(p *printer, rec *result.Record) {
	c := rec.Counts
	responses := c.Succeeded + c.Errors["length"] + c.Errors["status"] + c.Errors["expect"]
	p.f("  %d requests in %s, %s read\n", responses, units.Micros(float64(rec.Duration.Std().Microseconds())), units.Bytes(float64(c.BytesRead)))
	if s := socketErrors(c); s != "" {
		p.f("  Socket errors: %s\n", s)
	}
	if n := c.Errors["length"]; n > 0 {
		p.f("  Bodies longer than their Content-Length: %d\n", n)
	}
	if n := c.Errors["status"]; n > 0 {
		p.f("  %s: %d\n", statusLabel(rec), n)
	}
	if n := c.Errors["expect"]; n > 0 {
		p.f("  Responses failing --expect-body: %d\n", n)
	}
	if rec.LoadModel == "open" {
		p.f("  Late starts (sent > 1ms after their intended time): %d of %d\n", c.Late, c.Attempted)
	}
	secs := rec.Duration.Seconds()
	if secs <= 0 {
		secs = 1
	}
	p.f("Requests/sec: %10.2f\n", float64(responses)/secs)
	p.f("Transfer/sec: %10s\n", units.Bytes(rec.Throughput.BytesPerSec))
	if rec.Throughput.PeakSecond > 0 {
		p.f("Peak second:  %10.2f req/s\n", rec.Throughput.PeakSecond)
	}
}

// statusLabel names the responses whose status failed: wrk's "Non-2xx or 3xx responses" when
// any 2xx or 3xx counted as success, else the statuses expected ("Responses failing
// --expect-status 201" for the http command, "Responses of a status other than 200" for a
// workload that expects it).
func statusLabel(rec *result.Record) string {
	v, ok := rec.Parameters["expect_status"]
	if !ok {
		return "Non-2xx or 3xx responses"
	}
	list := strings.Join(strings.Fields(strings.Trim(fmt.Sprint(v), "[]")), ",")
	if rec.Workload == "http" {
		return "Responses failing --expect-status " + list
	}
	return "Responses of a status other than " + list
}

// handshakes writes the TLS line of an https run: what opening its connections cost, which is
// not in the latency above.
func handshakes(p *printer, rec *result.Record) {
	if line := TLSLine(rec); line != "" {
		p.f("%s\n", line)
	}
}

// TLSLine is the one line that says what opening an https run's connections cost, apart from
// its latency: "TLS 1.3 TLS_AES_128_GCM_SHA256 http/1.1: 100 handshakes (0 resumed), handshake
// mean ... ; TCP connect mean ...; not in the latency above"; "" for a run without TLS.
func TLSLine(rec *result.Record) string {
	t := rec.TLS
	if t == nil {
		return ""
	}
	what := strings.Join(strings.Fields("TLS "+strings.TrimPrefix(t.Version, "TLS ")+" "+t.CipherSuite+" "+t.Protocol), " ")
	where := "not in the latency above"
	if rec.LoadModel == "open" {
		where = "in the latency above only of the requests that waited for them"
	}
	return fmt.Sprintf("%s: %d handshakes (%d resumed), handshake %s; TCP connect %s; %s",
		what, t.Handshakes, t.Resumed, meanP50P99(t.Handshake), meanP50P99(t.Connect), where)
}

// meanP50P99 is "mean 1.20ms p50 1.10ms p99 3.00ms", or "-" without samples.
func meanP50P99(l *result.Latency) string {
	if l == nil || l.Count == 0 {
		return "-"
	}
	return fmt.Sprintf("mean %s p50 %s p99 %s", units.Micros(l.Mean), units.Micros(l.At(50)), units.Micros(l.At(99)))
}

func socketErrors(c result.Counts) string {
	e := c.Errors
	if e["connect"]+e["read"]+e["write"]+e["timeout"]+e["inflight"]+e["reset"] == 0 {
		return ""
	}
	s := fmt.Sprintf("connect %d, read %d, write %d, timeout %d", e["connect"], e["read"], e["write"], e["timeout"])
	if e["inflight"]+e["reset"] > 0 { // pipelining and HTTP/2
		s += fmt.Sprintf(", in flight at a close %d, reset %d", e["inflight"], e["reset"])
	}
	return s
}

// cost writes each process's cost (the CPUs it was pinned to, its busiest threads, where known)
// and what limited the run.
func cost(p *printer, rec *result.Record) {
	for _, pr := range rec.Processes {
		extra := ""
		if pr.CPUs != "" {
			extra = ", on CPU " + pr.CPUs
		}
		if s := limit.ThreadsText(pr); s != "" {
			extra += ", busiest threads " + s
		}
		p.f("%-13s %.2f CPU-s (%.0f%% of a core), peak RSS %s%s\n", pr.Role+" "+pr.Name+":",
			pr.CPUUser+pr.CPUSystem, pr.CPUPercent, units.Bytes(float64(pr.PeakRSS)), extra)
	}
	if len(rec.Processes) > 0 {
		p.f("limit: %s\n", limit.OfRecord(rec))
	}
}

func warnings(p *printer, rec *result.Record) {
	for _, w := range rec.Warnings {
		p.f("warning: %s\n", w)
	}
}

package export_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/textparse"

	"github.com/iobench/iobench/internal/fail"
	"github.com/iobench/iobench/internal/report/export"
	"github.com/iobench/iobench/internal/result"
)

// exposition is OpenMetrics text as Prometheus's own OpenMetrics parser (model/textparse, the one
// its scrapes use for application/openmetrics-text) reads it.
type exposition struct {
	types   map[string]model.MetricType
	units   map[string]string
	samples map[string][]parsedSample // by sample name (with its suffix)
}

type parsedSample struct {
	labels map[string]string
	value  float64
}

// parseOpenMetrics reads text with Prometheus's OpenMetrics parser and checks what that parser
// lets pass but the specification does not: each family's metadata once and before its samples,
// every sample of the family just declared with the suffix its type allows, no timestamps.
func parseOpenMetrics(t *testing.T, text []byte) exposition {
	t.Helper()
	e := exposition{types: map[string]model.MetricType{}, units: map[string]string{}, samples: map[string][]parsedSample{}}
	p := textparse.NewOpenMetricsParser(text, labels.NewSymbolTable())
	family, declared := "", map[string]bool{}
	for {
		entry, err := p.Next()
		if errors.Is(err, io.EOF) {
			return e
		}
		if err != nil {
			t.Fatalf("the OpenMetrics parser refused the text: %v\n%s", err, text)
		}
		switch entry {
		case textparse.EntryType:
			name, typ := p.Type()
			family = string(name)
			if declared[family] {
				t.Errorf("family %s declared twice", family)
			}
			declared[family], e.types[family] = true, typ
		case textparse.EntryUnit:
			name, unit := p.Unit()
			if string(name) != family {
				t.Errorf("UNIT of %s after TYPE of %s", name, family)
			}
			e.units[family] = string(unit)
		case textparse.EntrySeries:
			e.addSeries(t, p, family)
		}
	}
}

// suffixes are the sample names each type allows beyond its family's name.
var suffixes = map[model.MetricType][]string{
	model.MetricTypeCounter: {"_total"},
	model.MetricTypeGauge:   {""},
	model.MetricTypeSummary: {"", "_sum", "_count"},
}

func (e exposition) addSeries(t *testing.T, p textparse.Parser, family string) {
	t.Helper()
	_, ts, v := p.Series()
	var ls labels.Labels
	p.Labels(&ls)
	name := ls.Get(labels.MetricName)
	if ts != nil {
		t.Errorf("%s has a timestamp; a Pushgateway refuses those", name)
	}
	ok := false
	for _, s := range suffixes[e.types[family]] {
		ok = ok || name == family+s
	}
	if !ok {
		t.Errorf("sample %s in family %s of type %s", name, family, e.types[family])
	}
	m := ls.Map()
	delete(m, labels.MetricName)
	e.samples[name] = append(e.samples[name], parsedSample{labels: m, value: v})
}

// value returns the one sample of name whose labels include want.
func (e exposition) value(t *testing.T, name string, want map[string]string) float64 {
	t.Helper()
	var found []float64
	for _, s := range e.samples[name] {
		match := true
		for k, v := range want {
			match = match && s.labels[k] == v
		}
		if match {
			found = append(found, s.value)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d samples of %s with %v; want 1 (all: %v)", len(found), name, want, e.samples[name])
	}
	return found[0]
}

func exportOpenMetrics(t *testing.T, runs ...export.Run) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := export.OpenMetrics(&b, runs); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestOpenMetricsOfALiveRunAndABusRun(t *testing.T) {
	rec, bus := liveRecord(t), savedRecord(t, "bus-sync-1.json")
	text := exportOpenMetrics(t, export.Run{Name: "live", Record: rec}, export.Run{Name: "bus-sync-1", Record: bus})
	if !bytes.HasSuffix(text, []byte("# EOF\n")) {
		t.Errorf("the text does not end with # EOF")
	}
	e := parseOpenMetrics(t, text)
	for fam, typ := range map[string]model.MetricType{"iobench_operations_attempted": model.MetricTypeCounter,
		"iobench_latency_seconds": model.MetricTypeSummary, "iobench_throughput_per_second": model.MetricTypeGauge} {
		if e.types[fam] != typ {
			t.Errorf("family %s has type %q, want %q", fam, e.types[fam], typ)
		}
	}
	if e.units["iobench_latency_seconds"] != "seconds" || e.units["iobench_read_bytes"] != "bytes" {
		t.Errorf("units %v", e.units)
	}
	liveLabels := map[string]string{"run": "live", "workload": "hello", "impl": "go-hello", "mode": "async", "load_model": "open", "target": rec.Target}
	checkRun(t, e, rec, liveLabels)
	checkRun(t, e, bus, map[string]string{"run": "bus-sync-1", "workload": "bus", "impl": "go-bus", "mode": "sync", "target": bus.Target})
	lagP99 := e.value(t, "iobench_schedule_lag_seconds", with(liveLabels, "quantile", "0.99"))
	if lagP99 != rec.ScheduleLag.At(99)/1e6 {
		t.Errorf("schedule lag p99 %v s, the record has %v µs", lagP99, rec.ScheduleLag.At(99))
	}
	if got := e.value(t, "iobench_requests_late_total", liveLabels); got != float64(rec.Counts.Late) {
		t.Errorf("late %v, the record has %d", got, rec.Counts.Late)
	}
	if _, ok := e.samples["iobench_target_rate_per_second"]; !ok || len(e.samples["iobench_target_rate_per_second"]) != 1 {
		t.Errorf("target rate: %v; want the open loop's only", e.samples["iobench_target_rate_per_second"])
	}
}

// checkRun checks a run's counts, throughput, latency quantiles and process costs against its record.
func checkRun(t *testing.T, e exposition, rec *result.Record, run map[string]string) {
	t.Helper()
	for name, want := range map[string]float64{
		"iobench_operations_attempted_total": float64(rec.Counts.Attempted),
		"iobench_operations_succeeded_total": float64(rec.Counts.Succeeded),
		"iobench_operations_failed_total":    float64(rec.Counts.Failed),
		"iobench_throughput_per_second":      rec.Throughput.Mean,
		"iobench_duration_seconds":           rec.Duration.Std().Seconds(),
		"iobench_latency_seconds_count":      float64(rec.Latency.Count),
	} {
		if got := e.value(t, name, run); got != want {
			t.Errorf("%s %v = %v, the record has %v", name, run, got, want)
		}
	}
	for _, p := range rec.Latency.Percentiles {
		q := quantileLabels[p.P]
		if got := e.value(t, "iobench_latency_seconds", with(run, "quantile", q)); got != p.Value/1e6 {
			t.Errorf("quantile %s = %v s, the record's p%v is %v µs", q, got, p.P, p.Value)
		}
	}
	for _, p := range rec.Processes {
		got := e.value(t, "iobench_process_cpu_seconds_total", with(with(run, "process", p.Name), "role", p.Role))
		if d := got - (p.CPUUser + p.CPUSystem); d > 5e-4 || d < -5e-4 {
			t.Errorf("%s CPU %v s, the record has %v + %v", p.Name, got, p.CPUUser, p.CPUSystem)
		}
	}
}

// quantileLabels are the quantile label values of the record's percentiles, as OpenMetrics
// writes them canonically.
var quantileLabels = map[float64]string{50: "0.5", 75: "0.75", 90: "0.9", 99: "0.99", 99.9: "0.999", 99.99: "0.9999", 100: "1.0"}

// with returns a copy of m with k set to v.
func with(m map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for a, b := range m {
		out[a] = b
	}
	return out
}

func TestOpenMetricsErrorClassesAndEscaping(t *testing.T) {
	rec := savedRecord(t, "hello-closed-1.json")
	rec.Counts.Errors = map[string]int64{"timeout": 3, "status": 2}
	rec.Target = `http://127.0.0.1/"quoted"\path` + "\nnext"
	e := parseOpenMetrics(t, exportOpenMetrics(t, export.Run{Name: "r", Record: rec}))
	for class, n := range rec.Counts.Errors {
		if got := e.value(t, "iobench_errors_total", map[string]string{"class": class, "target": rec.Target}); got != float64(n) {
			t.Errorf("errors of class %s: %v, want %d", class, got, n)
		}
	}
}

// TestOpenMetricsAsAPushgatewayReadsIt parses the text as the Pushgateway parses a push: with
// Prometheus text format 0.0.4 (expfmt.TextParser), which ignores UNIT and EOF lines and takes an
// OpenMetrics counter's _total samples as an untyped family of that name.
func TestOpenMetricsAsAPushgatewayReadsIt(t *testing.T) {
	rec := liveRecord(t)
	parser := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := parser.TextToMetricFamilies(bytes.NewReader(exportOpenMetrics(t, export.Run{Name: "live", Record: rec})))
	if err != nil {
		t.Fatalf("text format 0.0.4 parser: %v", err)
	}
	attempted := fams["iobench_operations_attempted_total"]
	if attempted == nil || len(attempted.Metric) != 1 || attempted.Metric[0].GetUntyped().GetValue() != float64(rec.Counts.Attempted) {
		t.Fatalf("iobench_operations_attempted_total: %v", attempted)
	}
	lat := fams["iobench_latency_seconds"]
	if lat.GetType() != dto.MetricType_SUMMARY || lat.Metric[0].GetSummary().GetSampleCount() != uint64(rec.Latency.Count) {
		t.Errorf("latency summary: %v", lat)
	}
}

func TestOpenMetricsRefusesTwoRunsWithOneName(t *testing.T) {
	rec := savedRecord(t, "hello-closed-1.json")
	var b bytes.Buffer
	err := export.OpenMetrics(&b, []export.Run{{Name: "a", Record: rec}, {Name: "a", Record: rec}})
	if !errors.Is(err, fail.ErrBadInput) || !strings.Contains(err.Error(), "file name of its own") || b.Len() > 0 {
		t.Errorf("error %v, %d bytes written", err, b.Len())
	}
}

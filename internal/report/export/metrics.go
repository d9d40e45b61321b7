package export

import (
	"maps"
	"math"
	"slices"

	"github.com/iobench/iobench/internal/result"
)

// OpenMetrics types used here: the ones Prometheus text 0.0.4 knows too, so a Pushgateway
// reads every family.
const (
	counter = "counter"
	gauge   = "gauge"
	summary = "summary"
)

// family is one metric family: its name (a counter's samples add _total), type, unit (which the
// name ends with) and help, and how a record gives its samples.
type family struct {
	name, typ, unit, help string
	samples               func(r *result.Record) []sample
}

// sample is one line of a family: the suffix its name takes (_total, _sum, _count), its labels
// beyond the run's, and its value.
type sample struct {
	suffix string
	labels []label
	value  float64
}

// families are the metrics of a record, in the order they are written.
var families = []family{
	{"iobench_operations_attempted", counter, "", "Operations started in the measured phase: requests, commands or messages, as the workload counts them.",
		total(func(r *result.Record) (float64, bool) { return float64(r.Counts.Attempted), true })},
	{"iobench_operations_succeeded", counter, "", "Operations that succeeded, counted where the workload counts them.",
		total(func(r *result.Record) (float64, bool) { return float64(r.Counts.Succeeded), true })},
	{"iobench_operations_failed", counter, "", "Operations that failed.",
		total(func(r *result.Record) (float64, bool) { return float64(r.Counts.Failed), true })},
	{"iobench_errors", counter, "", "Failed operations by error class (connect, read, write, timeout, length, status, expect).", errorClasses},
	{"iobench_operations_lost", counter, "", "Operations never accounted for at the receiving end.",
		total(func(r *result.Record) (float64, bool) { return float64(r.Counts.Lost), true })},
	{"iobench_operations_duplicated", counter, "", "Operations received more than once.",
		total(func(r *result.Record) (float64, bool) { return float64(r.Counts.Duplicated), true })},
	{"iobench_requests_late", counter, "", "Open loop: requests sent more than 1 ms after their intended start.",
		total(func(r *result.Record) (float64, bool) { return float64(r.Counts.Late), r.LoadModel == "open" })},
	{"iobench_read_bytes", counter, "bytes", "Bytes of responses read in the measured phase.",
		total(func(r *result.Record) (float64, bool) { return float64(r.Counts.BytesRead), r.Counts.BytesRead > 0 })},
	{"iobench_duration_seconds", gauge, "seconds", "Length of the measured phase, warm-up excluded.",
		value(func(r *result.Record) (float64, bool) { return r.Duration.Std().Seconds(), true })},
	{"iobench_throughput_per_second", gauge, "", "Successful operations per second, the mean over the measured phase.",
		value(func(r *result.Record) (float64, bool) { return r.Throughput.Mean, true })},
	{"iobench_throughput_peak_per_second", gauge, "", "Successful operations per second in the best full second.",
		value(func(r *result.Record) (float64, bool) { return r.Throughput.PeakSecond, true })},
	{"iobench_target_rate_per_second", gauge, "", "Open loop: the rate asked for, operations per second.",
		value(func(r *result.Record) (float64, bool) { return r.Throughput.TargetRate, r.Throughput.TargetRate > 0 })},
	{"iobench_latency_seconds", summary, "seconds", "Latency: in an open loop from each request's intended start; the bus's from command sent to its event handled.",
		quantiles(func(r *result.Record) *result.Latency { return r.Latency })},
	{"iobench_latency_uncorrected_seconds", summary, "seconds", "Open loop: latency from the actual send.",
		quantiles(func(r *result.Record) *result.Latency { return r.Uncorrected })},
	{"iobench_schedule_lag_seconds", summary, "seconds", "Open loop: actual send minus intended start.",
		quantiles(func(r *result.Record) *result.Latency { return r.ScheduleLag })},
	{"iobench_process_cpu_seconds", counter, "seconds", "CPU time (user and system) of each measured process over the run.",
		processes("_total", func(p result.Process) float64 { return math.Round((p.CPUUser+p.CPUSystem)*1000) / 1000 })},
	{"iobench_process_peak_memory_bytes", gauge, "bytes", "Peak memory of each measured process (the record's peak_rss_bytes).",
		processes("", func(p result.Process) float64 { return float64(p.PeakRSS) })},
	{"iobench_machine_cpu_busy_ratio", gauge, "ratio", "Share of all the machine's cores busy during the run, whoever used them.",
		value(func(r *result.Record) (float64, bool) { return r.MachineCPU / 100, r.MachineCPU > 0 })},
	{"iobench_cpu_probe_seconds", gauge, "seconds", "The machine's speed just before the load: a fixed single-threaded loop's time (lower is faster).",
		value(func(r *result.Record) (float64, bool) { return r.CPUProbe / 1e6, r.CPUProbe > 0 })},
	{"iobench_warnings", gauge, "", "Warnings the run gave (see the record's warnings).",
		value(func(r *result.Record) (float64, bool) { return float64(len(r.Warnings)), true })},
	{"iobench_run_interrupted", gauge, "", "1 when the run was interrupted and its figures are partial, else 0.",
		value(func(r *result.Record) (float64, bool) { return b2f(r.Interrupted), true })},
	{"iobench_run_start_timestamp_seconds", gauge, "seconds", "When the run began, in seconds since the Unix epoch.",
		value(func(r *result.Record) (float64, bool) {
			return float64(r.StartedAt.UnixNano()) / 1e9, !r.StartedAt.IsZero()
		})},
}

// total is a counter's one sample, when ok says the record has it.
func total(get func(r *result.Record) (float64, bool)) func(r *result.Record) []sample {
	return one("_total", get)
}

// value is a gauge's one sample, when ok says the record has it.
func value(get func(r *result.Record) (float64, bool)) func(r *result.Record) []sample {
	return one("", get)
}

func one(suffix string, get func(r *result.Record) (float64, bool)) func(r *result.Record) []sample {
	return func(r *result.Record) []sample {
		if v, ok := get(r); ok {
			return []sample{{suffix: suffix, value: v}}
		}
		return nil
	}
}

// errorClasses is a sample per error class the record counted.
func errorClasses(r *result.Record) []sample {
	var out []sample
	for _, class := range slices.Sorted(maps.Keys(r.Counts.Errors)) {
		out = append(out, sample{suffix: "_total", labels: []label{{"class", class}}, value: float64(r.Counts.Errors[class])})
	}
	return out
}

// quantiles is a summary of the latency get returns: the record's percentiles as quantiles (0-1)
// in seconds, its count, and its sum (mean times count).
func quantiles(get func(r *result.Record) *result.Latency) func(r *result.Record) []sample {
	return func(r *result.Record) []sample {
		l := get(r)
		if l == nil || l.Count == 0 {
			return nil
		}
		var out []sample
		for _, p := range l.Percentiles {
			out = append(out, sample{labels: []label{{"quantile", quantileText(p.P)}}, value: p.Value / 1e6})
		}
		return append(out,
			sample{suffix: "_sum", value: l.Mean * float64(l.Count) / 1e6},
			sample{suffix: "_count", value: float64(l.Count)})
	}
}

// processes is a sample per measured process, labelled with its name and role.
func processes(suffix string, get func(p result.Process) float64) func(r *result.Record) []sample {
	return func(r *result.Record) []sample {
		var out []sample
		for _, p := range r.Processes {
			out = append(out, sample{suffix: suffix, labels: []label{{"process", p.Name}, {"role", p.Role}}, value: get(p)})
		}
		return out
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

package result

import (
	"time"
)

// SchemaVersion is the version of the record layout written by this build.
const SchemaVersion = 1

// Record is the result of one measured run.
type Record struct {
	SchemaVersion int            `json:"schema_version"`
	Workload      string         `json:"workload"`                    // http, hello, bus, publish, ...
	Impl          string         `json:"impl,omitempty"`              // the system under test, e.g. "go-hello"
	Mode          string         `json:"mode,omitempty"`              // sync or async, where the workload has modes (fanout: the route's, async-overlap too)
	Case          string         `json:"case,omitempty"`              // what else sets its runs apart, for grouping: fanout's connections and size, "c10 n300"
	Variant       string         `json:"variant,omitempty"`           // the impl's variant (its impl.yaml)
	Expect        []string       `json:"expected_findings,omitempty"` // seed flaws the variant reproduces on purpose (impl.Findings)
	LoadModel     string         `json:"load_model,omitempty"`        // closed or open
	Target        string         `json:"target,omitempty"`            // URL or queue measured, passwords redacted
	Parameters    map[string]any `json:"parameters"`
	Command       []string       `json:"command"` // the exact command line that produced the record
	Environment   Environment    `json:"environment"`
	StartedAt     time.Time      `json:"started_at"`
	Duration      Duration       `json:"duration"` // measured phase only, warm-up excluded
	Interrupted   bool           `json:"interrupted"`
	Counts        Counts         `json:"counts"`
	Throughput    Throughput     `json:"throughput"`
	Latency       *Latency       `json:"latency,omitempty"`             // from intended start in open loop
	Uncorrected   *Latency       `json:"latency_uncorrected,omitempty"` // open loop: from the actual send
	ScheduleLag   *Latency       `json:"schedule_lag,omitempty"`        // open loop: actual send minus intended
	TLS           *TLS           `json:"tls,omitempty"`                 // https: the handshakes, apart from the latency
	HTTP2         *HTTP2         `json:"http2,omitempty"`               // HTTP/2 runs: protocol, streams, frames
	Series        []Point        `json:"series,omitempty"`              // one point per second
	Threads       []ThreadStats  `json:"threads,omitempty"`             // per worker thread
	ThreadRate    *RateStats     `json:"thread_rate,omitempty"`         // wrk's Req/Sec row: per thread, per second
	Processes     []Process      `json:"processes,omitempty"`
	MachineCPU    float64        `json:"machine_cpu_percent,omitempty"` // all cores busy, % of all, every process (measured or not); 0 unknown
	CPUProbe      float64        `json:"cpu_probe_us,omitempty"`        // the machine's speed just before the load: package cpuprobe's fixed loop, µs (lower is faster); 0 unknown
	Warnings      []string       `json:"warnings,omitempty"`
	Verification  *Verification  `json:"verification,omitempty"`  // the run's own check, as the suite judged it
	StandsIn      string         `json:"stands_in_for,omitempty"` // the system the impl stands in for (its manifest's stands_in_for)
	Seed          *Seed          `json:"seed,omitempty"`          // the seed's published figure for this setup
	Verdict       *Verdict       `json:"verdict,omitempty"`       // the seed's question and claims, for its section of the report
	// Sections are the workloads' own sections, by their top-level JSON key ("bus", "fanout"):
	// each a value of the type its workload registered (RegisterSection), read with SectionOf,
	// or the raw JSON of a workload this build does not have.
	Sections map[string]any `json:"-"`
	Agent    *Agent         `json:"agent,omitempty"`  // one agent's share of a distributed run
	Merged   *Merged        `json:"merged,omitempty"` // merged from agents' records
}

// Environment says where a run happened.
type Environment struct {
	Hostname    string            `json:"hostname,omitempty"`
	OS          string            `json:"os"`
	Arch        string            `json:"arch"`
	Kernel      string            `json:"kernel,omitempty"`
	CPUModel    string            `json:"cpu_model,omitempty"`
	Cores       int               `json:"cores"`
	MemoryBytes uint64            `json:"memory_bytes,omitempty"`
	GoVersion   string            `json:"go_version"`
	Version     string            `json:"iobench_version"`
	GitCommit   string            `json:"iobench_commit"`
	Versions    map[string]string `json:"versions,omitempty"` // services and runtimes: "rabbitmq": "3.10.8"
	// Impls is the impls folder the system under test came from: its path, or "embedded
	// sha256:…" for the impls built into iobench (impl.RootName); empty without an impl.
	Impls string `json:"impls,omitempty"`
}

// Counts are the operations of the measured phase, by outcome.
type Counts struct {
	Attempted   int64            `json:"attempted"`
	Succeeded   int64            `json:"succeeded"`
	Failed      int64            `json:"failed"`
	Errors      map[string]int64 `json:"errors,omitempty"` // by class: connect, read, write, timeout, status, expect
	Late        int64            `json:"late,omitempty"`   // open loop: sent more than 1 ms after their intended start
	Lost        int64            `json:"lost,omitempty"`
	Duplicated  int64            `json:"duplicated,omitempty"`
	Redelivered int64            `json:"redelivered,omitempty"`
	BytesRead   int64            `json:"bytes_read,omitempty"`
}

// Throughput is the rate of completed operations.
type Throughput struct {
	Unit        string  `json:"unit"` // e.g. "req/s"
	Mean        float64 `json:"mean"`
	PeakSecond  float64 `json:"peak_second"`
	TargetRate  float64 `json:"target_rate,omitempty"` // open loop: the rate asked for
	BytesPerSec float64 `json:"bytes_per_sec,omitempty"`
}

// Latency summarizes one HDR histogram. All times are microseconds.
type Latency struct {
	Unit        string       `json:"unit"` // always "us"
	Count       int64        `json:"count"`
	Min         float64      `json:"min"`
	Mean        float64      `json:"mean"`
	Stdev       float64      `json:"stdev"`
	WithinStdev float64      `json:"within_stdev_pct"` // share of samples within one stdev of the mean
	Max         float64      `json:"max"`
	Percentiles []Percentile `json:"percentiles"`
	Histogram   string       `json:"hdr,omitempty"` // the compressed HdrHistogram, base64, for exact merges later
}

// Percentile is one point of a latency distribution.
type Percentile struct {
	P     float64 `json:"p"`     // e.g. 99.9
	Value float64 `json:"value"` // microseconds
}

// At returns the value at percentile p, or 0 when p was not recorded.
func (l *Latency) At(p float64) float64 {
	if l == nil {
		return 0
	}
	for _, q := range l.Percentiles {
		if q.P == p {
			return q.Value
		}
	}
	return 0
}

// TLS is what opening the connections of an https run cost, kept apart from the requests'
// latency (which, as wrk's, starts at the write, after the connect and the handshake). It counts
// every connection opened over the whole run, warm-up included; a failed connect or handshake
// is a connect error in Counts instead.
type TLS struct {
	Handshakes  int64    `json:"handshakes"`             // connections opened, each with one handshake
	Resumed     int64    `json:"resumed"`                // of them, those that resumed an earlier session
	Version     string   `json:"version,omitempty"`      // e.g. "TLS 1.3"
	CipherSuite string   `json:"cipher_suite,omitempty"` // e.g. "TLS_AES_128_GCM_SHA256"
	Protocol    string   `json:"alpn,omitempty"`         // the ALPN protocol the server chose: http/1.1, or "" for none
	Handshake   *Latency `json:"handshake"`              // the TLS handshakes alone
	Connect     *Latency `json:"connect"`                // the TCP connects before them
}

// Point is one second of a run.
type Point struct {
	Second    int                `json:"t"`      // 1-based index of the interval since the measured phase began
	Span      float64            `json:"span_s"` // the interval's length in seconds (the last one may be short)
	Completed int64              `json:"completed"`
	Errors    int64              `json:"errors"`
	P50       float64            `json:"p50_us,omitempty"`
	P99       float64            `json:"p99_us,omitempty"`
	Values    map[string]float64 `json:"values,omitempty"`     // workload-specific rates, e.g. "events_acked"
	At        int64              `json:"at_unix_ms,omitempty"` // wall-clock start of the interval (Unix ms); agents' records carry it
}

// ThreadStats is what one worker thread did.
type ThreadStats struct {
	Connections int   `json:"connections"`
	Completed   int64 `json:"completed"`
}

// RateStats summarizes a set of per-second rates (wrk's Req/Sec row: one sample per thread per second).
type RateStats struct {
	Mean        float64 `json:"mean"`
	Stdev       float64 `json:"stdev"`
	Max         float64 `json:"max"`
	WithinStdev float64 `json:"within_stdev_pct"`
}

// Process is the cost of one process (or process tree) during the run.
type Process struct {
	Name       string  `json:"name"`
	Role       string  `json:"role"` // generator, sut or service
	PID        int     `json:"pid,omitempty"`
	CPUUser    float64 `json:"cpu_user_s"`
	CPUSystem  float64 `json:"cpu_system_s"`
	PeakRSS    uint64  `json:"peak_rss_bytes"`
	CPUPercent float64 `json:"cpu_percent"` // of one core, over the measured wall time
	// HotThreads is the CPU of its busiest threads (at most 4, busiest first), each in percent of
	// one core over the measured wall time; empty when threads were not measured (older records).
	HotThreads []float64 `json:"hot_threads,omitempty"`
	// Workers is the size of a fixed pool of worker processes: PHP-FPM's pm.max_children for a
	// php_fpm impl, nginx's worker_processes; 0 when the process has none.
	Workers int `json:"workers,omitempty"`
	// CPUs is the list of CPUs the process was pinned to ("1", "0-1"); "" when it was not.
	CPUs string `json:"cpus,omitempty"`
}

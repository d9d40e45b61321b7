package publish

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"strings"
	"time"

	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/units"
)

// Seed2Row is one line of seed 2's results table, reproduced.
type Seed2Row struct {
	Lang     string  // Python or Go
	Name     string  // the seed's label
	Seed     string  // what the seed reported
	SeedRate float64 // the seed's number, msg/s; 0 when the seed has no such row
	Impl     string  // impl name (Python) or "go-amqp091"
	Variant  string  // impl variant or preset
	Record   *result.Record
	Err      error
}

// Seed2Rows returns the rows of seed 2's README in its order, plus the async (aio-pika) rows the
// seed did not have.
func Seed2Rows() []Seed2Row {
	rows := []Seed2Row{
		{Lang: "Python", Name: "Single Thread (Persistent)", Seed: "~1,400, 'with publisher confirms'", SeedRate: 1400, Impl: "python-pika-publisher", Variant: "single-persistent"},
		{Lang: "Python", Name: "Single Thread (Optimized)", Seed: "~22,000, non-persistent", SeedRate: 22000, Impl: "python-pika-publisher", Variant: "single"},
		{Lang: "Python", Name: "Multi-threading (8 threads)", Seed: "~5,900", SeedRate: 5900, Impl: "python-pika-publisher", Variant: "threads"},
		{Lang: "Python", Name: "Multiprocessing (4 processes)", Seed: "72,204", SeedRate: 72204, Impl: "python-pika-publisher", Variant: "processes"},
		{Lang: "Python", Name: "asyncio, aio-pika (8 tasks)", Seed: "(not in the seed)", Impl: "python-aio-pika-publisher", Variant: "async"},
		{Lang: "Python", Name: "asyncio, aio-pika, persistent + confirms (100 in flight)", Seed: "(not in the seed)", Impl: "python-aio-pika-publisher", Variant: "async-confirm"},
	}
	for _, p := range Presets() {
		name := map[string]string{"go-single": "Single Goroutine", "go-pool": "Worker Pool (NumCPU workers)", "go-ultra": "Ultra-optimized (2 x NumCPU)"}[p.Name]
		seed := map[string]string{"go-single": "220,773", "go-pool": "81,210 (10 workers)", "go-ultra": "peak 1,082,014 / sustained 266,025"}[p.Name]
		rows = append(rows, Seed2Row{Lang: "Go", Name: name, Seed: seed, SeedRate: p.SeedRate, Impl: "go-amqp091", Variant: p.Name})
	}
	return rows
}

// Seed2Config configures Seed2.
type Seed2Config struct {
	URL string
	// Installations are the installed Python impls by name (python-pika-publisher, python-aio-pika-publisher).
	Installations map[string]*impl.Installation
	// Scale multiplies every row's message count (1 = the seed's counts; 0.1 for a quick look).
	Scale float64
	// Only, when not empty, keeps the rows whose variant or preset is listed.
	Only []string

	Command     []string
	Versions    map[string]string
	BrokerRoots func() []int
	Log         *slog.Logger
	// OnRow is called after each row with its result (e.g. to print progress or save it).
	OnRow func(Seed2Row)
}

// Seed2 runs seed 2's comparison, one row after the other on the same broker, every row counted
// at the broker. A row that fails keeps its error; the others still run.
func Seed2(ctx context.Context, cfg Seed2Config) []Seed2Row {
	scale := cfg.Scale
	if scale <= 0 {
		scale = 1
	}
	var out []Seed2Row
	for _, row := range Seed2Rows() {
		if len(cfg.Only) > 0 && !contains(cfg.Only, row.Variant) {
			continue
		}
		if ctx.Err() != nil {
			break
		}
		if row.Lang == "Go" {
			c := DefaultConfig()
			c.URL, c.Command, c.Versions, c.BrokerRoots, c.Log = cfg.URL, cfg.Command, cfg.Versions, cfg.BrokerRoots, cfg.Log
			_ = ApplyPreset(&c, row.Variant)
			c.Count = scaled(c.Count, scale, int64(c.Publishers))
			row.Record, row.Err = Run(ctx, c)
		} else {
			inst := cfg.Installations[row.Impl]
			if inst == nil {
				row.Err = fmt.Errorf("impl %s not installed", row.Impl)
			} else {
				_, s, _ := settings(inst.Manifest, row.Variant)
				row.Record, row.Err = RunImpl(ctx, ImplConfig{
					Installation: inst, Variant: row.Variant, URL: cfg.URL,
					Count:   int(scaled(int64(s.Count), scale, int64(max(s.Concurrency, 1)))),
					Command: cfg.Command, Versions: cfg.Versions, BrokerRoots: cfg.BrokerRoots, Log: cfg.Log,
				})
			}
		}
		if cfg.OnRow != nil {
			cfg.OnRow(row)
		}
		out = append(out, row)
	}
	return out
}

func scaled(n int64, scale float64, atLeast int64) int64 {
	return max(int64(math.Round(float64(n)*scale)), atLeast)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// WriteSeed2Table prints the rows in the seed's shape (Markdown), with iobench's broker-side
// numbers beside the seed's.
func WriteSeed2Table(w io.Writer, rows []Seed2Row) error {
	var b strings.Builder
	b.WriteString("| lang | implementation (seed's label) | seed reported msg/s | iobench: broker-accepted msg/s, sustained | peak second | the publisher's own figure | messages | publisher CPU | broker CPU |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		if r.Record == nil || Section(r.Record) == nil {
			fmt.Fprintf(&b, "| %s | %s | %s | FAILED: %s | | | | | |\n", r.Lang, r.Name, r.Seed, oneLine(fmt.Sprint(r.Err)))
			continue
		}
		p := Section(r.Record)
		own := "-"
		switch {
		case p.SelfReported != nil:
			own = units.Rate(p.SelfReported.Rate) + " (self-timed)"
		case p.Client.Mean > 0:
			own = units.Rate(p.Client.Mean) + " (client writes)"
		}
		status := ""
		if r.Err != nil {
			status = " (" + oneLine(r.Err.Error()) + ")"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | **%s**%s | %s | %s | %s | %s | %s |\n",
			r.Lang, r.Name, r.Seed, units.Rate(p.Broker.Mean), status, peakText(p.Broker.PeakSecond), own,
			units.Count(p.Accepted), cpu(r.Record, "generator", "sut"), cpu(r.Record, "service"))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cpu renders the CPU seconds of the processes with the given roles ("-" when unmeasured).
func cpu(rec *result.Record, roles ...string) string {
	var s float64
	found := false
	for _, p := range rec.Processes {
		if contains(roles, p.Role) {
			s += p.CPUUser + p.CPUSystem
			found = true
		}
	}
	if !found {
		return "-"
	}
	return fmt.Sprintf("%.1fs / %s", s, time.Duration(rec.Duration).Round(10*time.Millisecond))
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// peakText is "-" when the run had no full second to take a peak from.
func peakText(v float64) string {
	if v == 0 {
		return "- (<1 s)"
	}
	return units.Rate(v)
}

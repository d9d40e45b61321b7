package merge

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/textblock"
	"github.com/iobench/iobench/internal/units"
)

// Text writes a merged record: the HTTP block of the whole, then each agent's share and cost
// beside the total.
func Text(w io.Writer, rec *result.Record, opt textblock.TextOptions) {
	textblock.HTTP(w, rec, opt)
	m := rec.Merged
	if m == nil {
		return
	}
	fmt.Fprintf(w, "Merged from %d agents of run %s (starts %.1f ms apart):\n", len(m.Agents), m.Run, m.Spread)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "agent\thost\tstart +ms\treq/s\tp99\tCPU-s\tpeak RSS\tsaturated\t\n")
	for _, s := range m.Agents {
		cpu, rss := 0.0, uint64(0)
		if p := s.Process; p != nil {
			cpu, rss = p.CPUUser+p.CPUSystem, p.PeakRSS
		}
		fmt.Fprintf(tw, "%d/%d\t%s\t%.1f\t%.2f\t%s\t%.2f\t%s\t%s\t\n", s.Index, s.Count, s.Host, s.Skew, s.Throughput,
			units.Micros(s.P99), cpu, units.Bytes(float64(rss)), yes(s.Saturated))
	}
	fmt.Fprintf(tw, "total\t\t\t%.2f\t%s\t%.2f\t%s\t\t\n", rec.Throughput.Mean, units.Micros(rec.Latency.At(99)), m.CPU, units.Bytes(float64(m.PeakRSS)))
	tw.Flush()
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// Print writes the merged block to stdout (to stderr when jsonPath is "-", stdout then carries
// the record) and saves the record at jsonPath when one is given.
func Print(stdout, stderr io.Writer, rec *result.Record, jsonPath string, opt textblock.TextOptions) error {
	out := stdout
	if jsonPath == "-" {
		out = stderr
	}
	Text(out, rec, opt)
	if jsonPath == "" {
		return nil
	}
	return result.Save(jsonPath, rec, stdout)
}

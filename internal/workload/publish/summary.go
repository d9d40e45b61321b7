package publish

import (
	"fmt"
	"io"
	"strings"

	"github.com/iobench/iobench/internal/inject"
	"github.com/iobench/iobench/internal/limit"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/units"
)

// countedByText labels how the broker-accepted count was read.
var countedByText = map[string]string{
	CountedByConfirms: "publisher confirms",
	CountedByQueue:    "queue message count, read from the broker",
	CountedByConsumed: "queue message count + consumer receipts",
}

// WriteSummary prints a run's record for people: the setup, the broker-accepted rate (sustained
// and peak second), the client write rate labelled apart, counts, latency, cost and warnings.
func WriteSummary(w io.Writer, rec *result.Record) error {
	p := Section(rec)
	if p == nil {
		return fmt.Errorf("not a publish record")
	}
	var b strings.Builder
	who := rec.Impl
	if p.Preset != "" { // records written before the presets became go-publisher's variants
		who += " --preset " + p.Preset
	}
	if p.Variant != "" {
		who += " variant " + p.Variant
	}
	fmt.Fprintf(&b, "publish: %s to %s\n", who, rec.Target)
	if p.Variant != "" {
		fmt.Fprintf(&b, "  concurrency %d, %s, confirms %s, queue %s (durable %s)\n", p.Publishers,
			map[bool]string{true: "persistent", false: "transient"}[p.Persistent], yesNo(p.Confirm > 0), p.Queue, yesNo(p.QueueDurable))
	} else {
		fmt.Fprintf(&b, "  %s\n", describeRecord(p))
	}
	for _, line := range inject.Lines(rec) {
		fmt.Fprintf(&b, "  %s\n", line)
	}
	fmt.Fprintf(&b, "  %s accepted by the broker in %.2fs (%s)\n", units.Count(p.Accepted), rec.Duration.Seconds(), countedByText[p.CountedBy])
	fmt.Fprintf(&b, "  broker-accepted rate   %14s msg/s sustained  %14s msg/s peak second\n", units.Rate(p.Broker.Mean), units.Rate(p.Broker.PeakSecond))
	if p.Variant == "" {
		fmt.Fprintf(&b, "  client write rate      %14s msg/s            (socket writes by the publisher, not what the broker took)\n", units.Rate(p.Client.Mean))
	}
	if p.SelfReported != nil {
		fmt.Fprintf(&b, "  self-reported rate     %14s msg/s            (the publisher's own timer, for contrast only)\n", units.Rate(p.SelfReported.Rate))
	}
	if p.Variant != "" {
		fmt.Fprintf(&b, "  sent (self-reported) %s", units.Count(p.Written))
	} else {
		fmt.Fprintf(&b, "  written %s", units.Count(p.Written))
	}
	if p.Confirm > 0 && p.Variant == "" {
		fmt.Fprintf(&b, ", confirmed %s, nacked %s", units.Count(p.Confirmed), units.Count(p.Nacked))
	}
	if p.Consumers > 0 {
		fmt.Fprintf(&b, ", consumed %s", units.Count(p.Consumed))
	}
	fmt.Fprintf(&b, ", lost %s, duplicated %s; broker drain after the last write %s\n",
		units.Count(rec.Counts.Lost), units.Count(rec.Counts.Duplicated), p.Drain.Std().Round(1e6))
	if len(p.PerPublisher) > 1 {
		parts := make([]string, 0, len(p.PerPublisher))
		for _, pc := range p.PerPublisher {
			parts = append(parts, units.Count(pc.Written))
		}
		fmt.Fprintf(&b, "  per publisher: %s\n", strings.Join(parts, " "))
	}
	if l := rec.Latency; l != nil {
		fmt.Fprintf(&b, "  end-to-end latency (send -> consumer), %s samples: p50 %s  p90 %s  p99 %s  p99.9 %s  max %s\n",
			units.Count(l.Count), units.Micros(l.At(50)), units.Micros(l.At(90)), units.Micros(l.At(99)), units.Micros(l.At(99.9)), units.Micros(l.Max))
	}
	for _, c := range p.BrokerChecks {
		fmt.Fprintf(&b, "  checked: %s\n", c)
	}
	for _, pr := range rec.Processes {
		fmt.Fprintf(&b, "  cost: %-10s %6.2fs CPU (%5.1f%% of a core)  peak RSS %s", pr.Name, pr.CPUUser+pr.CPUSystem, pr.CPUPercent, units.Bytes(float64(pr.PeakRSS)))
		if s := limit.ThreadsText(pr); s != "" {
			b.WriteString("  busiest threads " + s)
		}
		b.WriteString("\n")
	}
	if len(rec.Processes) > 0 {
		fmt.Fprintf(&b, "  limit: %s\n", limit.OfRecord(rec))
	}
	if rec.Interrupted {
		b.WriteString("  INTERRUPTED: the numbers cover the part that ran\n")
	}
	for _, wn := range rec.Warnings {
		fmt.Fprintf(&b, "  warning: %s\n", wn)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func describeRecord(p *Record) string {
	c := Config{
		Publishers: p.Publishers, ShareConnection: p.SharedConnection, Persistent: p.Persistent,
		Confirm: p.Confirm, Body: p.Body, Size: p.BodyBytes, Queue: p.Queue, QueueDurable: p.QueueDurable,
		Consumers: p.Consumers,
	}
	return c.describe()
}

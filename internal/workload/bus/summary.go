package bus

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/iobench/iobench/internal/fault"
	"github.com/iobench/iobench/internal/inject"
	"github.com/iobench/iobench/internal/limit"
	"github.com/iobench/iobench/internal/result"
)

// rateOrDash formats a rate, or "-" for none.
func rateOrDash(v float64) string {
	if v <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", v)
}

// WriteSummary prints a bus record for people: the seed's three figures (fill, command
// processing, event ACK; mean over the phase and peak second), the end-to-end latency, the
// accounting and what each process cost.
func WriteSummary(w io.Writer, rec *result.Record) error {
	b := Section(rec)
	if b == nil {
		return fmt.Errorf("not a bus record (workload %q)", rec.Workload)
	}
	p := rec.Parameters
	var sb strings.Builder
	name := rec.Impl
	if rec.Variant != "" && rec.Variant != rec.Mode {
		name += ":" + rec.Variant
	}
	fmt.Fprintf(&sb, "bus: %d commands, %s consumer (%s", b.Commands, rec.Mode, name)
	if rec.Mode == ModeAsync {
		fmt.Fprintf(&sb, ", concurrency %v, prefetch %v", p["concurrency"], p["prefetch"])
	}
	fmt.Fprintf(&sb, "), profile %s, %s", b.Profile, describe(rec, b.Broker, "broker_kind"))
	fmt.Fprintf(&sb, " + %s\n", describe(rec, b.DB, "db_kind"))
	if b.Topology != "" {
		fmt.Fprintf(&sb, "topology: %s", b.Topology)
		if b.MaxConnections > 0 {
			fmt.Fprintf(&sb, "; postgres max_connections %d", b.MaxConnections)
		}
		sb.WriteString("\n")
	}
	if b.Fault != "" {
		fmt.Fprintf(&sb, "fault: %s struck after %d commands at %v; recovered in %v\n",
			b.Fault, b.FaultAtCommands, b.FaultAt.Std().Round(time.Millisecond), b.FaultRecovery.Std().Round(time.Millisecond))
		if f := fault.Section(rec); f != nil && len(f.Faults) == 1 {
			fmt.Fprintf(&sb, "commands after the fault: %s\n", f.Faults[0].Recovery)
		}
	}
	for _, line := range inject.Lines(rec) {
		sb.WriteString(line + "\n")
	}
	sb.WriteString("\n")
	tw := tabwriter.NewWriter(&sb, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "phase\tmessages\ttime\tmean/s\tpeak 1s/s\tpeak 5s/s\t")
	for _, ph := range b.Phases {
		fmt.Fprintf(tw, "%s\t%d\t%v\t%.0f\t%s\t%s\t\n", ph.Name, ph.Count, ph.Duration.Std().Round(time.Millisecond), ph.Mean,
			rateOrDash(ph.PeakSecond), rateOrDash(ph.PeakChart))
	}
	tw.Flush()
	sb.WriteString("(peak 5s: the best 5-second window, what RabbitMQ's chart shows at its peak, as the seed read it)\n")
	fmt.Fprintf(&sb, "total time %v (fill start to last event)\n", rec.Duration.Std().Round(time.Millisecond))
	if l := rec.Latency; l != nil && l.Count > 0 {
		fmt.Fprintf(&sb, "\nend-to-end latency (command sent -> its event handled), %d events:\n  ", l.Count)
		for _, q := range l.Percentiles {
			fmt.Fprintf(&sb, "p%g %s  ", q.P, us(q.Value))
		}
		sb.WriteString("\n")
	}
	fmt.Fprintf(&sb, "\naccounting: %d rows (%d duplicate ids), %d commands lost; %d of %d events seen (%d duplicates, %d never seen)\n",
		b.Rows, b.DuplicateRows, b.LostCommands, b.EventsSeen, b.Commands, b.DuplicateEvents, b.LostEvents)
	fmt.Fprintf(&sb, "            %d commands reported handled (%d twice); redelivered: %d commands, %d events; %d consumer start(s)\n",
		b.CommandsHandled, b.DuplicateCommands, b.RedeliveredCommands, b.RedeliveredEvents, b.ConsumerStarts)
	if b.FailedCommands > 0 {
		fmt.Fprintf(&sb, "            %d command deliveries failed in the consumer's handler and were rejected\n", b.FailedCommands)
	}
	if b.LeftInQueue > 0 {
		fmt.Fprintf(&sb, "            %d messages were still queued when the consumer stopped\n", b.LeftInQueue)
	}
	if len(rec.Processes) > 0 {
		sb.WriteString("\n")
		tw = tabwriter.NewWriter(&sb, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "process\tcpu s\tcpu %\tcpu ms/1k commands\tpeak rss\tbusiest threads\t")
		for _, pr := range rec.Processes {
			cpu := pr.CPUUser + pr.CPUSystem
			perK := 0.0
			if b.Commands > 0 {
				perK = 1000 * cpu * 1000 / float64(b.Commands)
			}
			fmt.Fprintf(tw, "%s\t%.2f\t%.0f\t%.1f\t%s\t%s\t\n", pr.Name, cpu, pr.CPUPercent, perK, mib(pr.PeakRSS), limit.ThreadsText(pr))
		}
		tw.Flush()
		fmt.Fprintf(&sb, "limit: %s\n", limit.OfRecord(rec))
	}
	for _, w := range rec.Warnings {
		fmt.Fprintf(&sb, "warning: %s\n", w)
	}
	switch {
	case rec.Interrupted:
		sb.WriteString("INTERRUPTED: the run was stopped before every message was handled\n")
	case b.Verified:
		sb.WriteString("verified: every command has exactly one row and every event was handled\n")
	default:
		sb.WriteString("NOT VERIFIED: see the accounting above\n")
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// describe names a service of the run: "amqp (rabbitmq 3.10.8, local)".
func describe(rec *result.Record, kind, kindKey string) string {
	var parts []string
	for name, v := range rec.Environment.Versions {
		if matches(kind, name) {
			parts = append(parts, name+" "+v)
		}
	}
	if k, _ := rec.Parameters[kindKey].(string); k != "" {
		parts = append(parts, k)
	}
	if len(parts) == 0 {
		return kind
	}
	return kind + " (" + strings.Join(parts, ", ") + ")"
}

func matches(kind, service string) bool {
	switch kind {
	case "amqp":
		return service == "rabbitmq"
	case "nats":
		return service == "nats"
	case "postgres":
		return service == "postgres"
	}
	return false
}

// us formats microseconds for people.
func us(v float64) string {
	return time.Duration(v * float64(time.Microsecond)).Round(10 * time.Microsecond).String()
}

func mib(b uint64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
}

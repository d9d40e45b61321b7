package publish

import (
	"github.com/iobench/iobench/internal/impls/gopublisher"

	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/iobench/iobench/internal/cpuprobe"
	"github.com/iobench/iobench/internal/procstat"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/service"
)

// record builds the run's record.
func (r *run) record(ctx context.Context) *result.Record {
	c := &r.cfg
	self, busy := r.self.Usage(), r.machine.Busy()
	if r.broker != nil {
		r.broker.Sample()
	}
	r.checks = r.brokerChecks(ctx)

	written, confirmed, _ := r.counts()
	var nacked int64
	pp := make([]PublisherCount, len(r.pubs))
	for i, p := range r.pubs {
		n := p.Counts()
		nacked += n.Nacked
		pp[i] = PublisherCount{Index: i, Written: n.Written, Confirmed: n.Acked}
	}
	accepted := r.final.accepted
	elapsed := r.end.Sub(r.t0)
	wElapsed := r.wEnd.Sub(r.t0)
	var told *SelfReport
	if r.ext != nil {
		written, wElapsed = 0, 0 // another process wrote; iobench cannot count its writes
		if told = r.ext.report(); told != nil {
			written = told.Sent
		}
	}
	pub := &Record{
		Publishers: c.Publishers, SharedConnection: c.ShareConnection, Persistent: c.Persistent,
		Confirm: c.Confirm, Queue: c.Queue, QueueDurable: c.QueueDurable, Body: c.Body,
		BodyBytes: len(gopublisher.Encode(gopublisher.NewBody(c.Body, c.Size), c.Body, 0, 0, time.Now())), Consumers: c.Consumers,
		CountedBy: r.obs.countedBy,
		Accepted:  accepted, Written: written, Confirmed: confirmed, Nacked: nacked,
		Broker:       Rate{Mean: rate(accepted, elapsed), PeakSecond: r.obs.peak(func(p result.Point) float64 { return float64(p.Completed) })},
		Client:       Rate{Mean: rate(written, wElapsed), PeakSecond: r.obs.peak(func(p result.Point) float64 { return p.Values["client_written"] })},
		Drain:        result.Duration(max(r.end.Sub(r.wEnd), 0)),
		PerPublisher: pp,
		BrokerChecks: r.checks,
		SelfReported: told,
	}
	if r.ext != nil {
		pub.Variant = r.ext.variant.Name
		pub.ConnectAfterGo, pub.ImprovesOn = r.ext.settings.ConnectAfterGo, r.ext.settings.ImprovesOn
		pub.PerPublisher = nil
		pub.Client = Rate{}
		pub.Body = "seed (the impl's)"
		pub.BodyBytes = 0
	}
	rec := &result.Record{
		SchemaVersion: result.SchemaVersion,
		Workload:      "publish",
		Impl:          BuiltinImpl,
		Mode:          "async",
		LoadModel:     "closed",
		Target:        service.Redact(c.URL) + " queue " + c.Queue,
		Parameters:    r.parameters(),
		Command:       c.Command,
		Environment:   environment(c.Versions),
		StartedAt:     r.t0,
		Duration:      result.Duration(elapsed),
		Interrupted:   ctx.Err() != nil,
		Counts:        result.Counts{Attempted: written, Succeeded: accepted},
		Throughput:    result.Throughput{Unit: "msg/s", Mean: pub.Broker.Mean, PeakSecond: pub.Broker.PeakSecond},
		Series:        r.obs.series(),
	}
	rec.SetSection(Name, pub)
	if c.Confirm == 1 {
		rec.Mode = "sync" // each publisher waits for each confirm: one message in flight
	}
	if r.ext != nil {
		m := r.ext.inst.Manifest
		v := r.ext.variant
		rec.Impl, rec.Variant, rec.Mode, rec.Expect, rec.LoadModel = m.Name, v.Name, v.Mode, v.Expect, ""
		rec.Counts.Attempted = c.Count
	}
	rec.Throughput.BytesPerSec = math.Round(pub.Broker.Mean * float64(pub.BodyBytes))
	switch {
	case r.ext != nil:
		rec.Counts.Lost = max(c.Count-accepted, 0)
	case c.Consumers > 0:
		received, distinct, bad, persistent, hist := r.cons.tally()
		pub.Consumed = received
		rec.Counts.Lost = max(written-distinct, 0)
		rec.Counts.Duplicated = max(received-bad-distinct, 0)
		if hist.Count() > 0 {
			rec.Latency = hist.Summary()
		}
		if bad > 0 {
			r.warns = append(r.warns, fmt.Sprintf("%d deliveries were not iobench messages (another publisher on the queue?)", bad))
		}
		if c.Persistent {
			pub.BrokerChecks = append(pub.BrokerChecks, fmt.Sprintf("persistent: %d of %d deliveries had delivery mode 2", persistent, received))
		}
	case c.Confirm > 0:
		rec.Counts.Lost = max(written-confirmed, 0)
		rec.Counts.Failed = nacked
	default:
		rec.Counts.Lost = max(written-accepted, 0)
	}
	if rec.Interrupted {
		rec.Counts.Lost = 0 // an interrupted run proves nothing either way
	}
	rec.Counts.Failed += rec.Counts.Lost
	rec.Processes, rec.MachineCPU, rec.CPUProbe = r.processes(self, elapsed), busy, cpuprobe.Micros(r.probe)
	rec.Warnings = append(r.warns, r.warnings(rec, self, elapsed)...)
	return rec
}

func rate(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return math.Round(float64(n)/d.Seconds()*10) / 10
}

func (r *run) parameters() map[string]any {
	c := &r.cfg
	p := map[string]any{
		"publishers": c.Publishers, "share_connection": c.ShareConnection, "persistent": c.Persistent,
		"confirm": c.Confirm, "queue": c.Queue, "queue_durable": c.QueueDurable, "body": c.Body,
		"consumers": c.Consumers,
	}
	if c.Body == gopublisher.BodyBinary {
		p["size"] = c.Size
	}
	if c.Count > 0 {
		p["count"] = c.Count
	} else {
		p["duration"] = c.Duration.String()
	}
	if c.Consumers > 0 {
		p["prefetch"] = c.Prefetch
	}
	return p
}

func environment(versions map[string]string) result.Environment {
	env := result.CaptureEnvironment()
	for k, v := range versions {
		env.SetVersion(k, v)
	}
	return env
}

// startCost starts measuring iobench, the broker and the machine (when the measured phase begins).
func (r *run) startCost() {
	r.self, r.machine = procstat.NewSelfMeter(), procstat.NewMachineMeter()
	if r.broker != nil {
		r.broker.Mark()
	}
}

// brokerUsage returns what RabbitMQ's processes used from startCost to their last sample; ok is
// false when they were not measured.
func (r *run) brokerUsage() (u procstat.Usage, root int, ok bool) {
	if r.broker == nil {
		return u, 0, false
	}
	return r.broker.Usage()
}

// processes reports iobench's and the broker's cost over the measured phase.
func (r *run) processes(self procstat.Usage, elapsed time.Duration) []result.Process {
	out := []result.Process{result.NewProcess("iobench", "generator", 0, self, elapsed)}
	if r.ext != nil {
		out[0].Role = "observer"
		pid := 0
		if r.ext.proc != nil {
			pid = r.ext.proc.PID()
		}
		out = append(out, result.NewProcess(r.ext.inst.Manifest.Name, "sut", pid, r.ext.usage, elapsed))
	}
	if broker, root, ok := r.brokerUsage(); ok {
		out = append(out, result.NewProcess("rabbitmq", "service", root, broker, elapsed))
	}
	return out
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// warnings say what makes the numbers less trustworthy.
func (r *run) warnings(rec *result.Record, self procstat.Usage, elapsed time.Duration) []string {
	var w []string
	pub := Section(rec)
	if elapsed < 3*time.Second && !rec.Interrupted {
		w = append(w, fmt.Sprintf("run too short (%v): rates over less than 3 s are noisy; raise -n or use -d 10s", elapsed.Round(time.Millisecond)))
	}
	if d := pub.Drain.Std(); d > 500*time.Millisecond {
		w = append(w, fmt.Sprintf("the broker counted the last message %v after the client's last write: the client wrote faster than the broker accepted, so the client write rate overstates what the broker took",
			d.Round(time.Millisecond)))
	}
	if elapsed > 0 && r.ext == nil {
		cores := min(r.cfg.Publishers+r.cfg.Consumers, runtime.NumCPU())
		if used := self.CPU().Seconds() / elapsed.Seconds(); used > 0.9*float64(cores) {
			w = append(w, fmt.Sprintf("iobench used %.0f%% of %d core(s): the load generator may be the limit", used*100, cores))
		}
	}
	if _, _, ok := r.brokerUsage(); !ok {
		w = append(w, "the broker's CPU and memory were not measured (a broker not started by iobench)")
	}
	if pub.Nacked > 0 {
		w = append(w, fmt.Sprintf("the broker nacked %d messages", pub.Nacked))
	}
	if r.obs.depthErrs > 0 {
		w = append(w, fmt.Sprintf("%d reads of the queue's count failed (last: %v)", r.obs.depthErrs, r.obs.lastErr))
	}
	return w
}

// brokerChecks verifies through the broker that the queue and messages are what was asked:
// redeclaring the queue with the other durability must be refused, and (publish only) a
// message fetched from the queue must carry the delivery mode asked for.
func (r *run) brokerChecks(ctx context.Context) []string {
	c := &r.cfg
	conn, err := dial(c.URL, "iobench-publish-check")
	if err != nil {
		return []string{"not checked: " + err.Error()}
	}
	defer conn.Close()
	var out []string
	if ch, err := conn.Channel(); err == nil {
		_, err := ch.QueueDeclare(c.Queue, !c.QueueDurable, false, false, false, nil)
		var aerr *amqp091.Error
		switch {
		case errors.As(err, &aerr) && aerr.Code == amqp091.PreconditionFailed:
			out = append(out, fmt.Sprintf("queue durable: %s (the broker refused to redeclare it otherwise)", yesNo(c.QueueDurable)))
		case err == nil:
			out = append(out, fmt.Sprintf("queue durable: MISMATCH, the broker accepted durable=%v for a queue declared durable=%v", !c.QueueDurable, c.QueueDurable))
			r.warns = append(r.warns, "the queue's durability is not what was asked")
			_ = ch.Close()
		default:
			out = append(out, "queue durable: not checked: "+err.Error())
		}
	}
	if c.Consumers > 0 || r.final.depth <= 0 {
		return out
	}
	ch, err := conn.Channel()
	if err != nil {
		return out
	}
	defer ch.Close()
	d, ok, err := ch.Get(c.Queue, false)
	if err != nil || !ok {
		return append(out, "persistent: not checked (no message to fetch)")
	}
	_ = d.Nack(false, true)
	want := amqp091.Transient
	if c.Persistent {
		want = amqp091.Persistent
	}
	mode := "transient"
	if d.DeliveryMode == amqp091.Persistent {
		mode = "persistent"
	}
	if d.DeliveryMode == want || (want == amqp091.Transient && d.DeliveryMode == 0) {
		out = append(out, fmt.Sprintf("delivery mode: %s (%d), read back from the queue", mode, d.DeliveryMode))
	} else {
		out = append(out, fmt.Sprintf("delivery mode: MISMATCH, read back %d", d.DeliveryMode))
		r.warns = append(r.warns, "messages read back from the queue do not have the delivery mode asked for")
	}
	return out
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

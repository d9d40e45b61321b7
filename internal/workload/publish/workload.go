package publish

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/inject"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/service"
	"github.com/iobench/iobench/internal/workload"
)

// Name is the publish workload's id.
const Name = "publish"

func init() {
	workload.Register(workload.Workload{Name: Name, Spec: spec(), Manifest: section, Run: suiteRun, Verify: verify, Text: WriteSummary, Verified: verified,
		Figures: map[string]workload.FigureFunc{"client_write": clientWrite}, Tables: []workload.TableFunc{ratesTable, leftTable, inject.SweepTable}, Roles: map[string]service.Role{"broker": BrokerRole},
		Command: newCommand, Serve: []func() *cobra.Command{newServeCommand}})
}

// clientWrite is the publisher's client write rate, the figure seed 2 printed (the record's
// throughput is what the broker accepted): as iobench counted it, or, for a publisher of another
// process, which iobench cannot count, the rate it timed and printed itself.
func clientWrite(rec *result.Record) (float64, bool) {
	switch p := Section(rec); {
	case p == nil:
		return 0, false
	case p.Client.Mean > 0:
		return p.Client.Mean, true
	case p.SelfReported != nil && p.SelfReported.Rate > 0:
		return p.SelfReported.Rate, true
	}
	return 0, false
}

// verified is the publish check of a record (workload.Workload.Verified): the broker accepted
// every message written, once.
func verified(rec *result.Record) (bool, string) {
	switch p, c := Section(rec), rec.Counts; {
	case p == nil:
		return false, "the record has no publish section"
	case c.Lost > 0 || c.Duplicated > 0 || p.Nacked > 0:
		return false, fmt.Sprintf("%d messages lost, %d duplicated, %d nacked (written %d, broker accepted %d, counted by %s)",
			c.Lost, c.Duplicated, p.Nacked, p.Written, p.Accepted, p.CountedBy)
	}
	return true, ""
}

func spec() scenario.WorkloadSpec {
	return scenario.WorkloadSpec{
		Params: map[string]scenario.ParamSpec{
			"count":       {Type: scenario.Int, Check: scenario.Positive, Doc: "messages to publish (the variant's, from its manifest, if unset)"},
			"scale":       {Type: scenario.Float, Check: scenario.Positive, Doc: "publish this share of each variant's own count (1 if unset): a short run keeps the seed's proportions"},
			"concurrency": {Type: scenario.Int, Check: scenario.Positive, SUT: true, Doc: "threads, processes or tasks of the publisher (the variant's if unset)"},
			"timeout":     {Type: scenario.Duration, Check: scenario.PositiveDuration, Doc: "bound on the publisher's run (10m if unset)"},
			inject.Param:  {Type: scenario.String, Check: inject.CheckParam, SUT: true, Doc: "delay RabbitMQ's answers to the publisher impl through a relay: rabbitmq:latency=1ms[,jitter=100us]"},
		},
		Services: map[string]scenario.ServiceSpec{
			"broker": {Schemes: BrokerRole.SchemeList(), Doc: "local is RabbitMQ started by iobench (or the one of 'iobench services up')"},
		},
	}
}

// suiteRun runs the run's publisher impl against a RabbitMQ shared by the suite's runs and
// counts at the broker what it accepted.
func suiteRun(ctx context.Context, e *workload.Env, r scenario.Run) (*result.Record, error) {
	return runTarget(ctx, e, r, Config{})
}

// runTarget runs e's target for r: its impl under the run's parameters, with base's Queue,
// DrainTimeout and Log; or, for the zero Target (`iobench publish` without --impl), the built-in
// Go publisher with base's settings. Either way against the RabbitMQ shared by the suite.
func runTarget(ctx context.Context, e *workload.Env, r scenario.Run, base Config) (*result.Record, error) {
	t, err := e.Target(ctx, r)
	if err != nil {
		return nil, err
	}
	br, err := sharedBroker(ctx, e, r.Services["broker"])
	if err != nil {
		return nil, err
	}
	var roots func() []int
	var versions map[string]string
	if br.Kind == service.KindLocal {
		roots, versions = br.RootPIDs, map[string]string{"rabbitmq": br.Version}
	}
	specs, err := injectSpecs(r.Params, t.Inst != nil)
	if err != nil {
		return nil, err
	}
	if t.Inst == nil {
		c := base
		c.URL, c.Command, c.Versions, c.BrokerRoots, c.Progress = br.URL, e.Command, versions, roots, e.Progress
		return Run(ctx, c)
	}
	ic := ImplConfig{Installation: t.Inst, Variant: t.Variant.Name, URL: br.URL, Command: e.Command, Progress: e.Progress,
		BrokerRoots: roots, Versions: versions, Queue: base.Queue, DrainTimeout: base.DrainTimeout, Log: base.Log, Inject: specs}
	if v, ok := r.Params["scale"].(float64); ok {
		_, s, _ := settings(t.Inst.Manifest, t.Variant.Name)
		ic.Count = max(1, int(float64(s.Count)*v+0.5))
	}
	if v, ok := r.Params["count"].(int64); ok {
		ic.Count = int(v)
	}
	if v, ok := r.Params["concurrency"].(int64); ok {
		ic.Concurrency = int(v)
	}
	if v, ok := r.Params["timeout"].(time.Duration); ok {
		ic.Timeout = v
	}
	rec, err := RunImpl(ctx, ic)
	if rec != nil {
		t.Label(rec)
	}
	return rec, err
}

// BrokerRole is publish's broker: RabbitMQ.
var BrokerRole = service.Role{Name: "broker", Local: "rabbitmq", Schemes: map[string]string{"amqp": "rabbitmq", "amqps": "rabbitmq"}}

// sharedBroker resolves the suite's RabbitMQ once (service.Resolve): the scenario's URL, else
// the one of the environment or of 'iobench services up', else a private one stopped with the
// suite.
func sharedBroker(ctx context.Context, e *workload.Env, s scenario.Service) (*service.Instance, error) {
	v, err := e.Share(brokerKey(s), func() (any, func(), error) {
		inst, err := service.Resolve(ctx, BrokerRole, workload.Choice(s), service.Options{})
		if err != nil {
			return nil, nil, err
		}
		return inst, func() { _ = inst.Stop(context.Background()) }, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*service.Instance), nil
}

// brokerKey is what a suite shares its RabbitMQ under.
func brokerKey(s scenario.Service) string { return Name + "|broker|" + s.URL }

// verify runs every publish variant of inst with a small count and writes one line per
// variant: every message counted at the broker, the impl's own report, the queue's durability
// and the messages' delivery mode.
func verify(ctx context.Context, v *workload.VerifyEnv, inst *impl.Installation) (int, error) {
	url, closeBroker, err := v.BrokerURL(ctx)
	if err != nil {
		return 0, err
	}
	defer closeBroker()
	failures := 0
	for _, c := range VerifyImpl(ctx, ImplConfig{Installation: inst, URL: url, Count: v.Count, Command: v.Command, Log: v.Log}) {
		status := "ok  "
		if !c.OK {
			status, failures = "FAIL", failures+1
		}
		fmt.Fprintf(v.Out, "  %s publish %s: %s\n", status, c.Variant, c.Detail)
	}
	return failures, nil
}

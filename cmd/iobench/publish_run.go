package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/workload/publish"
	"github.com/iobench/iobench/internal/workload/runone"
)

func runPublish(cmd *cobra.Command, f *publishFlags) error {
	ctx := cmd.Context()
	stderr := cmd.ErrOrStderr()
	log, err := f.logger(stderr)
	if err != nil {
		return err
	}
	fs := cmd.Flags()
	cfg := f.cfg
	if fs.Changed("duration") && cfg.Duration <= 0 {
		return cli.BadInput("-d %v: use a positive duration such as 10s", cfg.Duration)
	}
	if fs.Changed("duration") && !fs.Changed("number") {
		cfg.Count = 0
	}
	if f.preset != "" {
		if f.implName != "" {
			return cli.BadInput("--preset and --impl both given; presets are the built-in Go publisher's, drop one")
		}
		// The preset first, then every flag the user gave on top of it.
		base := cfg
		if err := publish.ApplyPreset(&cfg, f.preset); err != nil {
			return cli.RunError(err)
		}
		overrideChanged(fs.Changed, &cfg, &base)
	}
	if err := result.CheckWritable(f.jsonPath); err != nil {
		return cli.BadInput("--json: %v", err)
	}
	name, variant, err := f.implRef()
	if err != nil {
		return err
	}
	var inst *impl.Installation
	if name != "" {
		if inst, err = runone.Install(ctx, f.root(), name, f.stateDir, log); err != nil {
			return err
		}
		if _, ok := inst.Manifest.Variant(variant); !ok {
			return cli.BadInput("%v", inst.Manifest.UnknownVariant(variant))
		}
	}
	cfg.URL = "amqp://check/" // checked for real once the broker is known
	if inst == nil {
		if err := cfg.Check(); err != nil {
			return cli.RunError(err)
		}
	}
	prog := cli.NewProgress(stderr, f.quiet)
	prog.Line("starting rabbitmq...")
	br, err := f.openBroker(ctx, log)
	prog.Done()
	if err != nil {
		return err
	}
	defer br.close(ctx, log)
	cfg.URL, cfg.Command, cfg.Versions, cfg.BrokerRoots, cfg.Log = br.url, os.Args, br.versions(), br.roots(), log
	if prog.On() {
		cfg.Progress = stderr
	}
	var rec *result.Record
	var runErr error
	if inst != nil {
		ic := publish.ImplConfig{
			Installation: inst, Variant: variant, URL: br.url, DrainTimeout: cfg.DrainTimeout,
			Command: os.Args, Versions: br.versions(), BrokerRoots: br.roots(), Log: log, Progress: cfg.Progress,
		}
		if fs.Changed("number") {
			ic.Count = int(cfg.Count)
		}
		if fs.Changed("publishers") {
			ic.Concurrency = cfg.Publishers
		}
		if fs.Changed("queue") {
			ic.Queue = cfg.Queue
		}
		rec, runErr = publish.RunImpl(ctx, ic)
	} else {
		rec, runErr = publish.Run(ctx, cfg)
	}
	prog.Done()
	return runone.Emit(cmd, rec, runErr, f.jsonPath, publish.WriteSummary, "interrupted; the summary covers the part that ran")
}

// implRef returns the impl and variant --impl names (NAME or NAME:VARIANT; "" for the impl's
// first variant), --variant V standing for the ":VARIANT" part; both given and different, or
// --variant without --impl, is bad input.
func (f *publishFlags) implRef() (name, variant string, err error) {
	name, variant = impl.ParseRef(f.implName)
	switch {
	case name == "" && f.variant != "":
		return "", "", cli.BadInput("--variant without --impl; name the impl too, e.g. --impl NAME:%s", f.variant)
	case variant != "" && f.variant != "" && variant != f.variant:
		return "", "", cli.BadInput("--impl %s and --variant %s name two variants; give one", f.implName, f.variant)
	case variant == "":
		variant = f.variant
	}
	return name, variant, nil
}

// overrideChanged copies onto cfg (a preset) the flags the user gave, which live in base.
func overrideChanged(changed func(string) bool, cfg, base *publish.Config) {
	type pair struct {
		flag string
		set  func()
	}
	for _, p := range []pair{
		{"publishers", func() { cfg.Publishers = base.Publishers }},
		{"share-connection", func() { cfg.ShareConnection = base.ShareConnection }},
		{"persistent", func() { cfg.Persistent = base.Persistent }},
		{"confirm", func() { cfg.Confirm = base.Confirm }},
		{"size", func() { cfg.Size = base.Size; cfg.Body = publish.BodyBinary }},
		{"body", func() { cfg.Body = base.Body }},
		{"number", func() { cfg.Count, cfg.Duration = base.Count, 0 }},
		{"duration", func() { cfg.Duration = base.Duration; cfg.Count = 0 }},
		{"queue", func() { cfg.Queue = base.Queue }},
		{"queue-durable", func() { cfg.QueueDurable = base.QueueDurable }},
		{"consumers", func() { cfg.Consumers = base.Consumers }},
	} {
		if changed(p.flag) {
			p.set()
		}
	}
}

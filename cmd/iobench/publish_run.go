package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/workload"
	"github.com/iobench/iobench/internal/workload/publish"
	"github.com/iobench/iobench/internal/workload/runone"
)

// runPublish turns the flags into one publish run (publish.RunOne): the impl --impl names, with
// the flags given on top of its variant, or the built-in publisher with all of them.
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
	if err := result.CheckWritable(f.jsonPath); err != nil {
		return cli.BadInput("--json: %v", err)
	}
	ref, err := f.implRef()
	if err != nil {
		return err
	}
	var target workload.Target
	if ref != "" {
		if target, err = runone.Target(cmd.Context(), f.implsDir, f.stateDir, ref, publish.Name); err != nil {
			return err
		}
		onImpl(fs.Changed, &cfg)
	} else {
		cfg.URL = "amqp://check/" // checked for real once the broker is known
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
	cfg.Command, cfg.Log = os.Args, log
	if prog.On() {
		cfg.Progress = stderr
	}
	rec, runErr := publish.RunOne(ctx, target, cfg, br.inst)
	prog.Done()
	return runone.Emit(cmd, rec, runErr, f.jsonPath, publish.WriteSummary, "interrupted; the summary covers the part that ran")
}

// onImpl keeps, of the settings an impl's variant gives, only those the user gave: -n, -P and
// --queue (zero for the variant's own).
func onImpl(changed func(string) bool, cfg *publish.Config) {
	if !changed("number") {
		cfg.Count = 0
	}
	if !changed("publishers") {
		cfg.Publishers = 0
	}
	if !changed("queue") {
		cfg.Queue = ""
	}
}

// implRef returns the impl --impl names (NAME or NAME:VARIANT; "" for none), --variant V
// standing for the ":VARIANT" part; both given and different, or --variant without --impl, is
// bad input.
func (f *publishFlags) implRef() (string, error) {
	name, variant := impl.ParseRef(f.implName)
	switch {
	case name == "" && f.variant != "":
		return "", cli.BadInput("--variant without --impl; name the impl too, e.g. --impl NAME:%s", f.variant)
	case variant != "" && f.variant != "" && variant != f.variant:
		return "", cli.BadInput("--impl %s and --variant %s name two variants; give one", f.implName, f.variant)
	case variant == "" && f.variant != "":
		return name + impl.RefSeparator + f.variant, nil
	}
	return f.implName, nil
}

package main

import (
	"log/slog"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/workload"
	"github.com/iobench/iobench/internal/workload/bus"
	"github.com/iobench/iobench/internal/workload/runone"
)

// busImplFlags pick the consumer of `iobench bus`: an impl from impls/ (go-bus by default), or a
// command of the user's (--sut-cmd).
type busImplFlags struct {
	name, variant, dir string
}

func (f *busImplFlags) add(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&f.name, "impl", "", "run this consumer impl from impls/ (NAME or NAME:VARIANT, see 'iobench impls')")
	fs.StringVar(&f.variant, "variant", "", "the impl's variant (default: its first of --mode)")
	fs.StringVar(&f.dir, "impls-dir", "", impl.RootFlagHelp)
}

// target is the consumer the flags pick: --sut-cmd through sh -c in --mode; else the impl --impl
// names (bus.DefaultImpl without it), installed and checked, its variant picked by --variant or
// --mode (workload.Pick; --mode counts for --impl only when given).
func (f *busFlags) target(cmd *cobra.Command, log *slog.Logger) (workload.Target, error) {
	ref := f.impl.name
	name, variant := impl.ParseRef(ref)
	switch {
	case ref == "" && f.impl.variant != "":
		return workload.Target{}, cli.BadInput("--variant without --impl; name the impl too")
	case ref != "" && f.sutCmd != "":
		return workload.Target{}, cli.BadInput("--impl and --sut-cmd both given; drop one")
	case f.sutCmd != "":
		return bus.CommandTarget([]string{"/bin/sh", "-c", f.sutCmd}, f.mode, filepath.Join(os.TempDir(), "iobench-sut-cmd")), nil
	case variant != "" && f.impl.variant != "" && variant != f.impl.variant:
		return workload.Target{}, cli.BadInput("--impl %s and --variant %s disagree; give the variant once", ref, f.impl.variant)
	case f.impl.variant != "":
		variant = f.impl.variant
	}
	mode := f.mode
	if ref == "" {
		name = bus.DefaultImpl
	} else if !cmd.Flags().Changed("mode") {
		mode = ""
	}
	root := f.impl.dir
	if root == "" {
		root = impl.DefaultRoot()
	}
	inst, err := runone.Install(cmd.Context(), root, name, f.stateDir, log)
	if err != nil {
		return workload.Target{}, err
	}
	if _, ok := inst.Manifest.Workloads[bus.Name]; !ok {
		return workload.Target{}, cli.BadInput("impl %s does not implement the bus workload (see 'iobench impls')", name)
	}
	t, err := workload.Pick(inst, variant, mode)
	if err != nil {
		return workload.Target{}, cli.BadInput("%v", err)
	}
	return t, nil
}

// flawOnly says whether a run that failed verification only reproduced the seed flaws its
// variant expects (judged as every reader of the record judges it); such a run is no failure.
func flawOnly(rec *result.Record, runErr error) bool {
	v := workload.Judge(rec, runErr)
	rec.Verification = &v
	return bus.FlawReproduced(rec)
}

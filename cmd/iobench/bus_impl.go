package main

import (
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/report"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/workload/bus"
	"github.com/iobench/iobench/internal/workload/runone"
)

// busImplFlags pick a consumer impl from impls/ for `iobench bus`.
type busImplFlags struct {
	name, variant, dir string
}

func (f *busImplFlags) add(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&f.name, "impl", "", "run this consumer impl from impls/ (NAME or NAME:VARIANT, see 'iobench impls')")
	fs.StringVar(&f.variant, "variant", "", "the impl's variant (default: its first of --mode)")
	fs.StringVar(&f.dir, "impls-dir", "", impl.RootFlagHelp)
}

// apply installs and checks the impl f names and makes it cfg's consumer, with the topology it
// declares; the services are steered towards what it speaks.
func (f *busImplFlags) apply(cmd *cobra.Command, cfg *bus.Config, svc *bus.ServicesConfig, stateDir string, log *slog.Logger) error {
	name, variant, _ := strings.Cut(f.name, ":")
	switch {
	case f.name == "" && f.variant != "":
		return cli.BadInput("--variant without --impl; name the impl too")
	case f.name == "":
		return nil
	case variant != "" && f.variant != "" && variant != f.variant:
		return cli.BadInput("--impl %s and --variant %s disagree; give the variant once", f.name, f.variant)
	case f.variant != "":
		variant = f.variant
	}
	if cfg.SUT != nil {
		return cli.BadInput("--impl and --sut-cmd both given; drop one")
	}
	root := f.dir
	if root == "" {
		root = impl.DefaultRoot()
	}
	inst, err := runone.Install(cmd.Context(), root, name, stateDir, log)
	if err != nil {
		return err
	}
	if _, ok := inst.Manifest.Workloads[bus.Name]; !ok {
		return cli.BadInput("impl %s does not implement the bus workload (see 'iobench impls')", name)
	}
	mode := ""
	if cmd.Flags().Changed("mode") {
		mode = cfg.Mode
	}
	v, err := bus.PickVariant(inst.Manifest, variant, mode)
	if err != nil {
		return cli.RunError(err)
	}
	if mode != "" && v.Mode != mode {
		return cli.BadInput("variant %s of %s is %s, not --mode %s; drop --mode", v.Name, name, v.Mode, mode)
	}
	bus.UseImpl(cfg, inst, v)
	if err := bus.TopologyOf(inst.Manifest).Prefer(name, svc); err != nil {
		return cli.RunError(err)
	}
	return nil
}

// busOutcome says, on w, when a run that failed verification only reproduced the seed flaws its
// variant expects; such a run is no failure.
func busOutcome(w io.Writer, rec *result.Record, runErr error) error {
	if rec != nil && runErr != nil && bus.FlawReproduced(rec) {
		fmt.Fprintf(w, "%s: %v\n", report.StatusText(report.StatusFlaw, rec.Expect), runErr)
		return nil
	}
	return runErr
}

// Package runone is what a workload's own command (`iobench fanout`, `iobench cachequeue`) shares:
// the flags that pick and install the impl (Flags), one run measured under a progress line, and
// its outcome written and mapped to the exit policy (Emit). It sits below the workload packages,
// which import it for their commands.
package runone

import (
	"context"
	"errors"
	"io"
	"log/slog"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/workload"
)

// Flags are the flags every one-run workload command has beside its own options.
type Flags struct {
	Impl     string // NAME or NAME:VARIANT
	JSON     string // where the record goes; "-" for stdout
	ImplsDir string // "" for impl.DefaultRoot
	StateDir string
	Quiet    bool
}

// Add defines the flags on fs; example is an impl of the workload, shown in --impl's help.
func (f *Flags) Add(fs *pflag.FlagSet, example string) {
	fs.StringVar(&f.Impl, "impl", "", "the impl from impls/ (NAME or NAME:VARIANT; see 'iobench impls'), e.g. "+example)
	fs.StringVar(&f.JSON, "json", "", "write the result record to this file ('-' for stdout)")
	fs.BoolVar(&f.Quiet, "quiet", false, "no progress line")
	fs.StringVar(&f.ImplsDir, "impls-dir", "", impl.RootFlagHelp)
	fs.StringVar(&f.StateDir, "state-dir", "", "where impls are installed (default $IOBENCH_STATE_DIR, /var/lib/iobench as root)")
}

// Measure measures one run of target, sending live figures to onSecond.
type Measure func(ctx context.Context, target workload.Target, onSecond func(engine.Snapshot)) (*result.Record, error)

// Run checks the flags (check: the command's own options), installs the impl of workload w,
// measures it with measure under a progress line and writes the outcome as Emit does, the
// record's text with write.
func (f *Flags) Run(cmd *cobra.Command, w string, check func() error, measure Measure, write func(io.Writer, *result.Record) error) error {
	if f.Impl == "" {
		return cli.BadInput("--impl is required; see 'iobench impls' for the impls of %s", w)
	}
	if err := check(); err != nil {
		return cli.RunError(err)
	}
	if err := result.CheckWritable(f.JSON); err != nil {
		return cli.BadInput("--json: %v", err)
	}
	target, err := f.target(cmd.Context(), w)
	if err != nil {
		return err
	}
	prog := cli.NewProgress(cmd.ErrOrStderr(), f.Quiet || f.JSON == "-")
	rec, runErr := measure(cmd.Context(), target, prog.Second)
	prog.Done()
	return Emit(cmd, rec, runErr, f.JSON, write, "interrupted; the partial result is above")
}

// target installs and checks the impl f.Impl names, which must declare workload w.
func (f *Flags) target(ctx context.Context, w string) (workload.Target, error) {
	return Target(ctx, f.ImplsDir, f.StateDir, f.Impl, w)
}

// Target installs and checks the impl ref (NAME or NAME:VARIANT) from the impls folder root
// (impl.DefaultRoot when empty), which must declare workload w; every failure is bad input.
func Target(ctx context.Context, root, stateDir, ref, w string) (workload.Target, error) {
	name, vname := impl.ParseRef(ref)
	inst, err := InstallFor(ctx, root, stateDir, name, w, slog.New(slog.DiscardHandler))
	if err != nil {
		return workload.Target{}, err
	}
	v, ok := inst.Manifest.Variant(vname)
	if !ok {
		return workload.Target{}, cli.BadInput("%v", inst.Manifest.UnknownVariant(vname))
	}
	return workload.Target{Inst: inst, Variant: v}, nil
}

// InstallFor installs and checks the impl name from the impls folder root (impl.DefaultRoot when
// empty), which must declare workload w; every failure is bad input.
func InstallFor(ctx context.Context, root, stateDir, name, w string, log *slog.Logger) (*impl.Installation, error) {
	if root == "" {
		root = impl.DefaultRoot()
	}
	inst, err := Install(ctx, root, name, stateDir, log)
	if err != nil {
		return nil, err
	}
	if _, ok := inst.Manifest.Workloads[w]; !ok {
		return nil, cli.BadInput("impl %s does not declare the %s workload; see 'iobench impls'", name, w)
	}
	return inst, nil
}

// Ref joins an impl given as --impl NAME[:VARIANT] and --variant VARIANT into one reference
// NAME[:VARIANT] ("" for none); --variant without --impl, or two different variants, is bad
// input.
func Ref(implFlag, variant string) (string, error) {
	name, v := impl.ParseRef(implFlag)
	switch {
	case name == "" && variant != "":
		return "", cli.BadInput("--variant without --impl; name the impl too, e.g. --impl NAME:%s", variant)
	case v != "" && variant != "" && v != variant:
		return "", cli.BadInput("--impl %s and --variant %s name two variants; give one", implFlag, variant)
	case v == "" && variant != "":
		return name + impl.RefSeparator + variant, nil
	}
	return implFlag, nil
}

// Logger is the logger on w at level (--log: debug, info or warn); another level is bad input.
func Logger(level string, w io.Writer) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, cli.BadInput("--log %q: use debug, info or warn", level)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l})), nil
}

// Install finds the impl name under root, installs and checks it; every failure is bad input
// (exit 2).
func Install(ctx context.Context, root, name, stateDir string, log *slog.Logger) (*impl.Installation, error) {
	m, err := impl.Find(root, name)
	if err != nil {
		return nil, cli.BadInput("%v", err)
	}
	inst, err := impl.Install(ctx, m, impl.InstallOptions{StateDir: stateDir, Logger: log})
	if err != nil {
		return nil, cli.BadInput("%v", err)
	}
	if err := inst.Check(ctx); err != nil {
		return nil, cli.BadInput("%v", err)
	}
	return inst, nil
}

// Emit ends a command that measured one run: it writes rec's text with write (on stderr when
// jsonPath is "-", which puts the record itself on stdout), saves the record to jsonPath when
// given, and maps the run's error, or an interrupt (saying interrupted), to the exit policy.
// rec may be nil.
func Emit(cmd *cobra.Command, rec *result.Record, runErr error, jsonPath string, write func(io.Writer, *result.Record) error, interrupted string) error {
	if rec != nil {
		v := workload.Judge(rec, runErr)
		rec.Verification = &v
		out := cmd.OutOrStdout()
		if jsonPath == "-" {
			out = cmd.ErrOrStderr()
		}
		if err := write(out, rec); err != nil {
			return err
		}
		if jsonPath != "" {
			if err := result.Save(jsonPath, rec, cmd.OutOrStdout()); err != nil {
				return cli.Failed(err)
			}
		}
	}
	if runErr != nil {
		return cli.RunError(runErr)
	}
	if rec != nil && rec.Interrupted {
		return cli.Interrupted(errors.New(interrupted))
	}
	return nil
}

package main

import (
	"context"
	"errors"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/workload"
)

// emit ends a command that measured one run: it writes rec's text with write (on stderr when
// --json - puts the record itself on stdout), saves the record to jsonPath when given, and maps
// the run's error, or an interrupt (saying interrupted), to the exit policy. rec may be nil.
func emit(cmd *cobra.Command, rec *result.Record, runErr error, jsonPath string, write func(io.Writer, *result.Record) error, interrupted string) error {
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

// implRun are the flags every one-run workload command has beside its own options.
type implRun struct {
	implName, jsonPath, implsDir, stateDir string
	quiet                                  bool
}

func (f *implRun) add(fs *pflag.FlagSet, example string) {
	fs.StringVar(&f.implName, "impl", "", "the impl from impls/ (NAME or NAME:VARIANT; see 'iobench impls'), e.g. "+example)
	fs.StringVar(&f.jsonPath, "json", "", "write the result record to this file ('-' for stdout)")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress line")
	fs.StringVar(&f.implsDir, "impls-dir", "", impl.RootFlagHelp)
	fs.StringVar(&f.stateDir, "state-dir", "", "where impls are installed (default $IOBENCH_STATE_DIR, /var/lib/iobench as root)")
}

// run checks the flags (check: the command's own options), installs the impl of workload w,
// measures it with measure under a progress line and writes the outcome as emit does.
func (f *implRun) run(cmd *cobra.Command, w string, check func() error,
	measure func(ctx context.Context, t workload.Target, onSecond func(engine.Snapshot)) (*result.Record, error),
	write func(io.Writer, *result.Record) error) error {
	if f.implName == "" {
		return cli.BadInput("--impl is required; see 'iobench impls' for the impls of %s", w)
	}
	if err := check(); err != nil {
		return cli.RunError(err)
	}
	if err := result.CheckWritable(f.jsonPath); err != nil {
		return cli.BadInput("--json: %v", err)
	}
	target, err := implTarget(cmd, f.implsDir, f.stateDir, f.implName, w)
	if err != nil {
		return err
	}
	prog := cli.NewProgress(cmd.ErrOrStderr(), f.quiet || f.jsonPath == "-")
	rec, runErr := measure(cmd.Context(), target, prog.Second)
	prog.Done()
	return emit(cmd, rec, runErr, f.jsonPath, write, "interrupted; the partial result is above")
}

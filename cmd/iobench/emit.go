package main

import (
	"errors"
	"io"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/result"
)

// emit ends a command that measured one run: it writes rec's text with write (on stderr when
// --json - puts the record itself on stdout), saves the record to jsonPath when given, and maps
// the run's error, or an interrupt (saying interrupted), to the exit policy. rec may be nil.
func emit(cmd *cobra.Command, rec *result.Record, runErr error, jsonPath string, write func(io.Writer, *result.Record) error, interrupted string) error {
	if rec != nil {
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

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
)

// subcommands holds the constructors of the top-level commands; each command's file adds its own
// in an init function, so that commands live in files of their own.
var subcommands []func() *cobra.Command

// exitError carries an exit code with an error. Errors without one exit 2 (bad input or an
// environment the user must fix); failures found by a measurement (lost messages) exit 1.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// failed marks err as a measurement failure (exit 1) rather than bad input.
func failed(err error) error { return &exitError{code: 1, err: err} }

// badInput returns a one-line bad-input error (exit 2).
func badInput(format string, args ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, args...)}
}

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "iobench",
		Short:         "Reproducible, correct sync-vs-async I/O benchmarks of backend services",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return badInput("%v; see '%s --help'", err, c.CommandPath())
	})
	root.CompletionOptions.DisableDefaultCmd = true
	for _, sub := range subcommands {
		root.AddCommand(sub())
	}
	return root
}

// execute runs the CLI and maps errors to exit codes; only main calls os.Exit.
func execute(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := newRootCmd(stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	fmt.Fprintf(stderr, "iobench: %s\n", oneLine(err.Error()))
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return 2
}

// oneLine keeps user-facing errors on one line, as promised by every command.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

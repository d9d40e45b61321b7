package cli

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

// ExitError carries an exit code with an error. Errors without one exit 2 (bad input or an
// environment the user must fix); failures found by a measurement (lost messages) exit 1; an
// interrupted run exits 130.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// Failed marks err as a measurement failure (exit 1) rather than bad input.
func Failed(err error) error { return &ExitError{Code: 1, Err: err} }

// BadInput returns a one-line bad-input error (exit 2).
func BadInput(format string, args ...any) error {
	return &ExitError{Code: 2, Err: fmt.Errorf(format, args...)}
}

// Interrupted returns the error of a run stopped by Ctrl-C (exit 130).
func Interrupted(err error) error { return &ExitError{Code: 130, Err: err} }

// Quiet sets what every iobench command has: no usage dump on errors, flag errors as bad input
// in one line, output to stdout and stderr.
func Quiet(root *cobra.Command, stdout, stderr io.Writer) {
	root.SilenceUsage = true
	root.SilenceErrors = true
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return BadInput("%v; see '%s --help'", err, c.CommandPath())
	})
	root.CompletionOptions.DisableDefaultCmd = true
}

// Execute runs root with args until done or interrupted (SIGINT, SIGTERM cancel its context),
// prints an error as one line prefixed with name, and returns the exit code; only main calls
// os.Exit.
func Execute(root *cobra.Command, args []string, name string, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	fmt.Fprintf(stderr, "%s: %s\n", name, OneLine(err.Error()))
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	return 2
}

// OneLine keeps user-facing errors on one line, as promised by every command.
func OneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

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

	"github.com/iobench/iobench/internal/fail"
	"github.com/iobench/iobench/internal/suggest"
)

// ExitError carries an exit code with an error. This is the one error policy of every command:
// bad input or an environment the user must fix exits 2 (also any error without a code, and any
// matching fail.ErrBadInput); a run that failed or could not be verified exits 1; an interrupt
// exits 130. RunError applies it to the error of a measurement.
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

// NotJudged marks err as a check that could not be judged (exit 3): compare's --fail-if on too
// few repeats, or on two setups, so that a CI gate never passes silently.
func NotJudged(err error) error { return &ExitError{Code: 3, Err: err} }

// Interrupted returns the error of a run stopped by Ctrl-C (exit 130).
func Interrupted(err error) error { return &ExitError{Code: 130, Err: err} }

// RunError maps the error of a run to the policy: bad input (fail.ErrBadInput) exits 2, an
// interrupt (the context canceled) 130, anything else, a run that began and failed, 1. An
// error that already has a code keeps it.
func RunError(err error) error {
	var ee *ExitError
	switch {
	case err == nil || errors.As(err, &ee):
		return err
	case errors.Is(err, fail.ErrBadInput):
		return &ExitError{Code: 2, Err: err}
	case errors.Is(err, context.Canceled):
		return Interrupted(err)
	}
	return Failed(err)
}

// Quiet sets what every iobench command has: no usage dump on errors, flag errors as bad input
// in one line, output to stdout and stderr.
func Quiet(root *cobra.Command, stdout, stderr io.Writer) {
	root.SilenceUsage = true
	root.SilenceErrors = true
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return BadInput("%v; see '%s --help'", err, helpPath(c))
	})
	root.CompletionOptions.DisableDefaultCmd = true
}

// helpPath is the command line that shows c's help: its usage line up to its first argument or
// flag placeholder ("iobench http" for "iobench http URL [flags]", which is also the lean image's
// root, whose CommandPath is "iobench").
func helpPath(c *cobra.Command) string {
	var words []string
	for _, w := range strings.Fields(c.UseLine()) {
		if strings.ToUpper(w) == w || strings.HasPrefix(w, "[") {
			break
		}
		words = append(words, w)
	}
	return strings.Join(words, " ")
}

// Strict makes every command under root that only groups subcommands (serve, services) reject
// an unknown one as bad input, instead of printing its help and exiting 0; without arguments it
// still prints its help. Call it once the commands are added.
func Strict(root *cobra.Command) {
	for _, c := range root.Commands() {
		Strict(c)
		if !c.HasSubCommands() || c.Run != nil || c.RunE != nil {
			continue
		}
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return BadInput("unknown command %q for %q; %ssee '%s --help'", args[0], cmd.CommandPath(), didYouMean(args[0], cmd), cmd.CommandPath())
			}
			return cmd.Help()
		}
	}
}

// didYouMean is `did you mean "hello"? ` for the subcommand of c nearest name, or "".
func didYouMean(name string, c *cobra.Command) string {
	var known []string
	for _, sub := range c.Commands() {
		known = append(known, sub.Name())
	}
	if h := suggest.Hint(name, known); h != "" {
		return h + " "
	}
	return ""
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
	fmt.Fprintf(stderr, "%s: %s\n", name, OneLine(fail.Text(err)))
	var ee *ExitError
	switch {
	case errors.As(err, &ee):
		return ee.Code
	case ctx.Err() != nil:
		return 130 // interrupted, whatever the command made of it
	}
	return 2
}

// OneLine keeps user-facing errors on one line, as promised by every command.
func OneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

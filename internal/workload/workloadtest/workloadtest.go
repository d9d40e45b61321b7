// Package workloadtest runs the registered workloads' commands in a test as the iobench
// executable does: the workload's own command (Run), and the Go systems under test that a run
// starts as children of the test binary, `BINARY serve NAME` (ServeMain).
package workloadtest

import (
	"bytes"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/workload"
)

// Run runs args, e.g. "fanout", "--impl", "go-fanout", through a root holding the registered
// workloads' commands and, under serve, their serve commands; it returns the exit code and what
// the command wrote on stdout and stderr.
func Run(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = cli.Execute(root(&out, &errb), args, "iobench", &errb)
	return code, out.String(), errb.String()
}

// ServeMain stands in for iobench when the test binary was started as `BINARY serve ...`, as a
// run starts a Go impl or its helpers (os.Executable is the test binary): it runs the serve
// command and exits. Otherwise it returns. Call it first in TestMain.
func ServeMain() {
	if len(os.Args) > 1 && os.Args[1] == "serve" {
		os.Exit(cli.Execute(root(os.Stdout, os.Stderr), os.Args[1:], "iobench", os.Stderr))
	}
}

// root is the command tree the registered workloads give, quiet and strict as iobench's is.
func root(stdout, stderr io.Writer) *cobra.Command {
	r := &cobra.Command{Use: "iobench"}
	serve := &cobra.Command{Use: "serve"}
	serve.AddCommand(workload.ServeCommands()...)
	r.AddCommand(serve)
	r.AddCommand(workload.Commands()...)
	cli.Quiet(r, stdout, stderr)
	cli.Strict(r)
	return r
}

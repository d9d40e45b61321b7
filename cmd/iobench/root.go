package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/sut"
	"github.com/iobench/iobench/internal/workload"
)

// subcommands holds the constructors of the top-level commands that are not a workload's; each
// command's file adds its own in an init function, so that commands live in files of their own.
// The workloads' own commands come from the registry (workload.Commands).
var subcommands []func() *cobra.Command

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "iobench",
		Short: "Reproducible, correct sync-vs-async I/O benchmarks of backend services",
		// First stop what an iobench that was killed left running (its SUTs' workers).
		PersistentPreRun: func(cmd *cobra.Command, _ []string) { sut.Reap("", cmd.ErrOrStderr()) },
	}
	cli.Quiet(root, stdout, stderr)
	for _, sub := range subcommands {
		root.AddCommand(sub())
	}
	root.AddCommand(workload.Commands()...)
	cli.Strict(root)
	return root
}

// execute runs the CLI and maps errors to exit codes; only main calls os.Exit.
func execute(args []string, stdout, stderr io.Writer) int {
	return cli.Execute(newRootCmd(stdout, stderr), args, "iobench", stderr)
}

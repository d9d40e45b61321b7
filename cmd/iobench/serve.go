package main

import (
	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/workload"
)

// serveSubcommands holds the constructors of `iobench serve X` defined in this package; the
// registered workloads give the others (workload.ServeCommands).
var serveSubcommands []func() *cobra.Command

func init() { subcommands = append(subcommands, newServeCmd) }

func newServeCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run a built-in Go system under test (hello, bus, ...)",
	}
	for _, sub := range serveSubcommands {
		cmd.AddCommand(sub())
	}
	cmd.AddCommand(workload.ServeCommands()...)
	return cmd
}

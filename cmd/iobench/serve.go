package main

import (
	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/workload"
)

func init() { subcommands = append(subcommands, newServeCmd) }

// newServeCmd is `iobench serve`: its subcommands are the registered workloads' Go systems under
// test (workload.ServeCommands).
func newServeCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run a built-in Go system under test (hello, bus, ...)",
	}
	cmd.AddCommand(workload.ServeCommands()...)
	return cmd
}

package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/version"
)

func init() { subcommands = append(subcommands, newVersionCmd) }

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the iobench version and git commit",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(cmd.OutOrStdout(), "iobench %s (commit %s, %s)\n", version.Version, version.GitCommit(), runtime.Version())
			return nil
		},
	}
}

package main

import "github.com/spf13/cobra"

// serveSubcommands holds the constructors of `iobench serve X`; each built-in SUT's file adds its own.
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
	return cmd
}

package main

import (
	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/httpcmd"
)

func init() { subcommands = append(subcommands, newHTTPCmd) }

func newHTTPCmd() *cobra.Command { return httpcmd.New("http URL", "iobench") }

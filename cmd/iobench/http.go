package main

import (
	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/collect"
	"github.com/iobench/iobench/internal/httpcmd"
)

func init() {
	subcommands = append(subcommands, newHTTPCmd)
	httpcmd.Local = collect.Local // --agents-local: the collector lives in iobench, not the lean image
}

func newHTTPCmd() *cobra.Command { return httpcmd.New("http URL", "iobench") }

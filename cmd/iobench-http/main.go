// Command iobench-http is the lean generator image of `iobench http`: the same command, built
// without the services, workloads and reports of iobench, so that the process loading a server
// stays small. `iobench http` hands off to it when it sits beside iobench (see internal/handoff);
// it can also be run by itself, with or without the leading word "http".
package main

import (
	"fmt"
	"os"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/handoff"
	"github.com/iobench/iobench/internal/httpcmd"
)

func main() {
	if err := handoff.CheckBuild(os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "iobench: %v\n", err)
		os.Exit(2)
	}
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "http" {
		args = args[1:]
	}
	root := httpcmd.New("iobench http URL", handoff.Image)
	root.Flags().BoolP("help", "h", false, "help for iobench http") // cobra would name the root "iobench"
	cli.Quiet(root, os.Stdout, os.Stderr)
	os.Exit(cli.Execute(root, args, "iobench", os.Stderr))
}

// Command iobench measures sync-vs-async I/O of backend services: HTTP load with correct latency,
// message buses counted at the receiving end, and the seed benchmarks reproduced side by side.
package main

import (
	"os"
	"strings"

	"github.com/iobench/iobench/internal/handoff"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "http" && !localAgents(os.Args) {
		// Returns only when there is no lean generator image beside iobench to run instead.
		handoff.ToLean(os.Args)
	}
	os.Exit(execute(os.Args[1:], os.Stdout, os.Stderr))
}

// localAgents reports whether args ask for --agents-local, which runs in iobench: it holds the
// collector that the lean image leaves out (its agents hand off).
func localAgents(args []string) bool {
	for _, a := range args {
		if a == "--agents-local" || strings.HasPrefix(a, "--agents-local=") {
			return true
		}
	}
	return false
}

// Command iobench measures sync-vs-async I/O of backend services: HTTP load with correct latency,
// message buses counted at the receiving end, and the seed benchmarks reproduced side by side.
package main

import (
	"os"

	"github.com/iobench/iobench/internal/handoff"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "http" {
		// Returns only when there is no lean generator image beside iobench to run instead.
		handoff.ToLean(os.Args)
	}
	os.Exit(execute(os.Args[1:], os.Stdout, os.Stderr))
}

// Command iobench measures sync-vs-async I/O of backend services: HTTP load with correct latency,
// message buses counted at the receiving end, and the seed benchmarks reproduced side by side.
package main

import (
	"os"
)

func main() {
	os.Exit(execute(os.Args[1:], os.Stdout, os.Stderr))
}

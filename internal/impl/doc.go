// Package impl is the contract between iobench and its systems under test, in every language
// (Go included): each lives in impls/<language>/<folder>/ with an impl.yaml manifest beside its
// code, and is named <language>-<folder> (go-hello, python-pika-publisher).
//
// Load reads and validates a manifest, reporting every problem at once, each with a hint
// (ManifestError). A manifest declares its variants, each sync or async and each possibly
// expecting a seed flaw it reproduces on purpose (Findings), and the workloads it implements.
// List and Find discover impls; WorkloadRefs gives the names a scenario may use.
//
// Install runs the impl's language toolchain, one file each: python.go (a virtualenv owned by
// iobench, pip install -r requirements.txt), node.go (npm ci from the committed lock file),
// php.go (Debian packages only, nothing to install) and golang.go (the iobench executable); a
// stamp of what was installed makes reruns free. Check verifies the prerequisites (commands,
// Python modules, Node packages, PHP extensions and libraries, the iobench executable), naming
// every missing one with exactly what to install.
//
// Start runs a variant through the one runner, package sut, with the environment of package
// env: it waits until the impl is ready (a log line, a TCP port, or the bus report stream read
// by StartOptions.Stream), keeps its log in a file, measures the CPU seconds and peak memory of
// its whole process tree and stops it, leaving nothing behind. One-shot impls (the publishers
// of seed 2) are told to begin with a line on their standard input (Process.Send). Judge sorts
// what verify's check of an HTTP impl's routes found (RouteProblem; each HTTP workload checks its
// own routes) against the variant's expected seed flaws.
package impl

// Package scenario reads scenario files (YAML) and expands them into runs.
//
// A scenario names a workload, the impls to measure, parameters (a list of values makes a
// matrix), how many times to repeat each combination, the warm-up and measured durations, and the
// services to use. A file may hold several scenarios as YAML documents separated by "---"; the
// file is a suite, named after the file.
//
// Load validates a file against a registry the caller passes (Known: the workloads, their impls,
// parameters and services), reports every problem at once with the file, line and a hint, and
// expands the scenarios into Runs: workload x impls x parameter matrix x repeats, with the
// repeats of the variants interleaved (A1 B1 A2 B2 ...) so that a drift of the machine over time
// hits every variant alike. Each run has a stable ID (the same file gives the same IDs) and says
// which listen ports it needs; two different systems under test that would share a fixed port
// are an error, because a runner may keep both up while it interleaves them.
//
// Sizes: a scenario gives its short default size (what `iobench run` runs here in a few minutes)
// and, in a full: block, the seed's own sizes (params, repeats, warmup, duration), applied when
// Known.Full is set (iobench run --full).
//
// Pinning: a cpus: block (`cpus: {generator: "0", sut: "1"}`) keeps the generator's threads and
// the impl's processes on CPUs of their own (package cpuset), so that they do not take turns on
// one core; the records say where each ran.
//
// The package knows nothing of how a run is carried out: that is the caller's (internal/suite);
// the registry of this build is package workload's (workload.Known).
package scenario

// Package impl is the contract between iobench and the systems under test written in other
// languages: each lives in impls/<language>/<name>/ with an impl.yaml manifest beside its code.
//
// Load reads and validates a manifest, reporting every problem at once, each with a hint
// (ManifestError). Install puts the impl's own dependencies into places iobench owns, under the
// state directory: a virtualenv per Python impl (pip install -r requirements.txt), a copy of
// package.json and its lock file per Node impl (npm ci); a stamp of what was installed makes
// reruns free. Check verifies the prerequisites the manifest declares (commands, Python
// modules, Node packages, PHP extensions), naming every missing one with its install hint.
// Start runs the impl through the one runner, package sut, with the environment of DESIGN §5.2
// (Env* constants): it waits until the impl is ready (a log line, a TCP port, or the bus report
// stream read by StartOptions.Stream), keeps its log in a file, measures the CPU seconds and peak
// memory of its whole process tree and stops it, leaving nothing behind. One-shot impls (the
// publishers of seed 2) are told to begin with a line on their standard input (Process.Send).
package impl

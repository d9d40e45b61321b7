// Package impl is the contract between iobench and the systems under test written in other
// languages: each lives in impls/<language>/<name>/ with an impl.yaml manifest beside its code.
//
// Load reads and validates a manifest, reporting every problem at once, each with a hint
// (ManifestError). Install puts the impl's own dependencies into places iobench owns, under the
// state directory: a virtualenv per Python impl (pip install -r requirements.txt), a copy of
// package.json and its lock file per Node impl (npm ci); a stamp of what was installed makes
// reruns free. Check verifies the prerequisites the manifest declares (commands, Python
// modules, Node packages, PHP extensions), naming every missing one with its install hint.
// Start runs the impl with the environment of DESIGN §5.2 (Env* constants), waits until it is
// ready (a log line or a TCP port), keeps its log in a file, measures the CPU seconds and peak
// RSS of its whole process tree and stops it, leaving nothing behind.
//
// The runner is not internal/supervise: an impl may become ready by printing a line rather than
// by listening, one-shot impls (the publishers of seed 2) are told to begin on their standard
// input and report on their standard output, and a process tree whose children exit before the
// end (a Python process pool) must still have their CPU counted, which needs the children's
// times (cutime, cstime) that supervise does not read.
package impl

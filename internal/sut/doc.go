// Package sut is the one runner for every system under test: the built-in Go servers, the bus
// consumer and the impls of impls/ in any language.
//
// Start runs a command (argv, working directory, environment) as the leader of a process group of
// its own, with a parent-death signal so that it never outlives iobench, and returns once it is
// ready: when a TCP address accepts connections, a line of output matches a regular expression,
// or the caller's reader of standard output says so (the bus report stream: the bus hands its
// tally's reader to the runner as Options.Stream). A one-shot SUT is then told to begin with a
// line on its standard input (Send). The last lines of output are kept for error messages and,
// with Options.LogDir, all of them in a log file.
//
// The cost of the whole process tree, CPU seconds since the SUT became ready and peak memory,
// is measured by procstat.Meter, sampled every 200 ms and before the SUT is stopped. Stop sends
// a signal to the group (SIGTERM by default), waits a grace period, then stops (SIGSTOP) and
// kills (SIGKILL) what is left of the group and of every descendant, including those that left
// the group with setsid and were seen in a sample or at the stop: pre-forked servers (PHP-FPM,
// nginx, Python and Node workers) go with all their children.
//
// The parent-death signal reaches only the leader. So that a SIGKILLed iobench does not leave
// the leader's children running, each process group is recorded in the state directory (sut/,
// one JSON file each: pgid, the leader's start time, the owning iobench, the descendants seen
// outside the group) until it is stopped, and every iobench command begins with Reap, which
// kills what is left of the groups whose owner is dead and says so in one line.
package sut

// Package timerslack widens the timer slack of a whole process, the threads the Go runtime
// started before main included.
//
// Linux lets a sleeping thread wake up to its timer slack late (50 µs by default) so that wake-ups
// can be merged. The Go runtime's sysmon thread sleeps 20 µs at a time while the program is busy,
// and when it finds the only P (GOMAXPROCS=1) in the same system call twice in a row it hands the
// P to another thread: for a process that spends its time in short socket writes, such as the bus
// consumer, sysmon's wake-ups and those hand-offs cost about a seventh of its CPU (13-16% in
// three paired runs of 30,000 commands on a busy machine). With a slack of 1 ms, sysmon wakes
// about once a millisecond and only a system call longer than that loses its P.
//
// A thread can set only its own slack, and new threads take their creator's; sysmon starts
// before any user code runs. So Ensure sets the slack of the calling thread and re-executes the
// program (execve keeps the PID, the open descriptors and the slack), whose threads then all
// start with it.
package timerslack

// Package procstat reads what processes cost from /proc and getrusage, so that every run can say
// what each process (generator, system under test, services) used.
//
// Read and Self give one process's CPU time and memory. ReadStat parses /proc/PID/stat: the
// parent, the process group and the start time that, with the PID, names a process even after
// the PID is reused. Tree finds a process's descendants and Group the members of a process group.
// Meter follows a whole process tree, a system under test with its workers, and is the one place
// where the CPU seconds, the peak memory and the busiest threads of a tree are measured; its
// documentation says what exactly it counts. Set is a Meter per root of a service whose processes
// may change (a restarted broker); SelfMeter measures the calling process alone, the generator;
// MachineMeter how busy all the machine's cores were, whoever used them.
package procstat

package procstat

import (
	"os"
	"testing"
	"time"
)

// TestSchedThreads: the calling process's threads have schedstats, and a thread that spins
// shows its time on a CPU grow.
func TestSchedThreads(t *testing.T) {
	before := SchedThreads(os.Getpid())
	if len(before) == 0 {
		t.Skip("no /proc/PID/task/TID/schedstat here")
	}
	var d Sched
	for end := time.Now().Add(10 * time.Second); d.Run < 20*time.Millisecond && time.Now().Before(end); {
		d = SchedSince(before, SchedThreads(os.Getpid())) // spins, reading
	}
	if d.Run < 20*time.Millisecond || d.Slices <= 0 || d.Wait < 0 {
		t.Errorf("after 10 s of spinning: %+v", d)
	}
	if (Sched{Wait: 10 * time.Millisecond, Slices: 4}).Delay() != 2500*time.Microsecond || (Sched{}).Delay() != 0 {
		t.Error("Delay is the mean wait per slice, 0 without slices")
	}
}

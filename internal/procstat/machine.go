package procstat

import (
	"math"
	"os"
	"strconv"
	"strings"
)

// MachineMeter measures how busy the machine's CPUs were, all processes together (measured by
// iobench or not), from /proc/stat: the time not idle (nor waiting for I/O) over all the time
// of all cores, between NewMachineMeter and Busy. Time a hypervisor gave to other machines
// (steal) counts as busy: it was not there for this one.
type MachineMeter struct {
	busy, total uint64
	ok          bool
}

// NewMachineMeter starts measuring now.
func NewMachineMeter() *MachineMeter {
	m := &MachineMeter{}
	m.busy, m.total, m.ok = cpuTimes()
	return m
}

// Busy returns how busy all cores were since NewMachineMeter, in percent of all of them to 0.1;
// 0 when /proc/stat cannot be read or no time has passed.
func (m *MachineMeter) Busy() float64 {
	busy, total, ok := cpuTimes()
	if !m.ok || !ok || total <= m.total {
		return 0
	}
	return math.Round(1000*float64(busy-m.busy)/float64(total-m.total)) / 10
}

// cpuTimes reads the first line of /proc/stat, the sum over all cores: busy and total clock ticks.
func cpuTimes() (busy, total uint64, ok bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 6 || f[0] != "cpu" {
		return 0, 0, false
	}
	// user nice system idle iowait irq softirq steal guest guest_nice; guest time is already in user.
	for i, s := range f[1:min(len(f), 9)] {
		n, _ := strconv.ParseUint(s, 10, 64)
		total += n
		if i != 3 && i != 4 {
			busy += n
		}
	}
	return busy, total, true
}

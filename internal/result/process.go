package result

import (
	"math"
	"time"

	"github.com/iobench/iobench/internal/procstat"
)

// NewProcess turns what a process cost over wall time into a record entry; CPU percents, the
// process's and its busiest threads', are of one core.
func NewProcess(name, role string, pid int, u procstat.Usage, wall time.Duration) Process {
	p := Process{
		Name:      name,
		Role:      role,
		PID:       pid,
		CPUUser:   math.Round(u.User.Seconds()*1000) / 1000,
		CPUSystem: math.Round(u.System.Seconds()*1000) / 1000,
		PeakRSS:   u.PeakRSS,
	}
	if wall > 0 {
		p.CPUPercent = percent(u.CPU(), wall)
		for _, t := range u.Threads {
			p.HotThreads = append(p.HotThreads, percent(t, wall))
		}
	}
	return p
}

// percent is cpu in percent of one core over wall, to 0.1.
func percent(cpu, wall time.Duration) float64 {
	return math.Round(1000*cpu.Seconds()/wall.Seconds()) / 10
}

package result

import (
	"math"
	"time"

	"github.com/iobench/iobench/internal/procstat"
)

// NewProcess turns what a process cost over wall time into a record entry; CPU percent is of
// one core.
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
		p.CPUPercent = math.Round(1000*u.CPU().Seconds()/wall.Seconds()) / 10
	}
	return p
}

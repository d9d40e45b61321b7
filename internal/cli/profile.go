package cli

import (
	"os"
	"runtime/pprof"
)

// StartCPUProfile writes a Go CPU profile of this process to path until stop is called: the
// hidden --cpuprofile flags of commands whose hot path developers tune.
func StartCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

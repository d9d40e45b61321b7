package result

import (
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/iobench/iobench/internal/version"
)

// CaptureEnvironment reads the facts of this machine that a reader of the record needs.
func CaptureEnvironment() Environment {
	host, _ := os.Hostname()
	return Environment{
		Hostname:    host,
		OS:          runtime.GOOS,
		Arch:        runtime.GOARCH,
		Kernel:      readTrim("/proc/sys/kernel/osrelease"),
		CPUModel:    cpuModel(),
		Cores:       runtime.NumCPU(),
		MemoryBytes: memTotal(),
		GoVersion:   runtime.Version(),
		Version:     version.Version,
		GitCommit:   version.GitCommit(),
	}
}

// SetVersion records the version of a service or runtime the run used, e.g. "rabbitmq",
// "3.10.8"; an empty name or version records nothing.
func (e *Environment) SetVersion(name, version string) {
	if name == "" || version == "" {
		return
	}
	if e.Versions == nil {
		e.Versions = map[string]string{}
	}
	e.Versions[name] = version
}

func readTrim(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func cpuModel() string {
	for _, line := range strings.Split(readTrim("/proc/cpuinfo"), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func memTotal() uint64 {
	for _, line := range strings.Split(readTrim("/proc/meminfo"), "\n") {
		if strings.HasPrefix(line, "MemTotal:") {
			f := strings.Fields(line)
			if len(f) >= 2 {
				n, _ := strconv.ParseUint(f[1], 10, 64)
				return n * 1024
			}
		}
	}
	return 0
}

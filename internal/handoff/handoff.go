// Package handoff lets `iobench http` replace itself (execve) with the lean generator image
// iobench-http, built beside it from the same sources. The generator process then carries only
// the HTTP engine, not the embedded NATS server, SQLite, pgx and AMQP packages of iobench, whose
// start-up alone maps about 15 MiB (see docs/ARCHITECTURE.md). The process, its PID, its
// arguments, its standard streams and its signals stay the same; only the program changes.
package handoff

import (
	"fmt"
	"github.com/iobench/iobench/internal/env"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/iobench/iobench/internal/version"
)

// Environment variables of the hand-off.
const (
	envStamp = "IOBENCH_HANDOFF_STAMP" // the build stamp of the iobench that handed off
	envFrom  = "IOBENCH_HANDOFF_FROM"  // its executable, to hand back to
)

// Image is the file name of the lean generator image.
const Image = "iobench-http"

// ToLean replaces the process with the lean image found beside the running executable, passing
// args (os.Args, program name first) unchanged. It returns only when it did not hand off: no
// image there, env.HTTPInProcess set, or the exec failed; the caller then runs the command itself.
func ToLean(args []string) {
	if os.Getenv(env.HTTPInProcess) == "1" {
		return
	}
	self, err := os.Executable()
	if err != nil {
		return
	}
	lean := filepath.Join(filepath.Dir(self), Image)
	if _, err := os.Stat(lean); err != nil {
		return
	}
	vars := append(os.Environ(), envStamp+"="+version.Stamp(), envFrom+"="+self)
	_ = syscall.Exec(lean, args, vars)
}

// CheckBuild runs in the lean image before anything else. When the iobench that handed off was
// built apart from this image (so their engines may differ), it says so on stderr and hands back
// to that iobench with env.HTTPInProcess=1, so that the numbers come from the engine the user built.
// It returns only when the builds match, when it was not handed off to, or when handing back
// failed (an error to report).
func CheckBuild(stderr io.Writer) error {
	stamp, from := os.Getenv(envStamp), os.Getenv(envFrom)
	os.Unsetenv(envStamp)
	os.Unsetenv(envFrom)
	if stamp == "" || stamp == version.Stamp() {
		return nil
	}
	fmt.Fprintf(stderr, "iobench: note: %s is from another build than %s; running the generator in iobench itself (make build rebuilds both)\n", Image, from)
	vars := append(os.Environ(), env.HTTPInProcess+"=1")
	err := syscall.Exec(from, os.Args, vars)
	return fmt.Errorf("hand back to %s: %w", from, err)
}

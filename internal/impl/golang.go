package impl

import (
	"context"
	"log/slog"
	"os"
)

// golang is the Go toolchain. The Go impls are iobench's own built-ins (`iobench serve ...`), so
// nothing is installed; Check makes sure the iobench executable that start.command names is
// there.
type golang struct{}

func (golang) install(context.Context, *Installation, *slog.Logger) error { return nil }

// check looks for the iobench executable when start.command runs it.
func (golang) check(_ context.Context, inst *Installation, miss missFunc) {
	if cmd := inst.Manifest.Start.Command; len(cmd) == 0 || cmd[0] != "iobench" {
		return
	}
	if st, err := os.Stat(inst.Executable); inst.Executable == "" || err != nil || st.Mode()&0o111 == 0 {
		miss("iobench executable", or(inst.Executable, "(unknown)"), "build it with make build (bin/iobench) or go install ./cmd/iobench")
	}
}

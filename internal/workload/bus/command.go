package bus

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/iobench/iobench/internal/inject"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/workload"
)

// Options are one bus run as `iobench bus` asks for it. The consumer and its mode are the target's.
type Options struct {
	N                     int
	Concurrency, Prefetch int
	Profile               string
	Fault                 string   // as ParseFault reads it; "" for none
	Inject                []string // --inject, as inject.ParseAll reads them
	Timeout               time.Duration
	// Services says which broker and database to use or start (its Options: the state directory
	// of 'iobench services up', the logger of the servers iobench starts).
	Services ServicesConfig
	Command  []string
	Progress io.Writer // the live progress line; nil for none
	Log      *slog.Logger
}

// RunOne runs target once as a one-run suite would (workload.Single), on the services o asks for.
// Unlike a suite's run, a run that only reproduced the seed flaws its variant expects keeps its
// ErrVerify, for the command to say so (FlawReproduced).
func RunOne(ctx context.Context, target workload.Target, o Options) (*result.Record, error) {
	params := map[string]any{"n": int64(o.N), "concurrency": int64(o.Concurrency), "prefetch": int64(o.Prefetch),
		"profile": o.Profile, "fault": o.Fault, "timeout": o.Timeout, inject.Param: strings.Join(o.Inject, ";")}
	r := scenario.Run{ID: Name, Workload: Name, Impl: target.Name(), Params: params, Repeat: 1, Repeats: 1}
	e, done := workload.Single(target, r, o.Command, nil)
	defer done()
	e.Progress = o.Progress
	return runOn(ctx, e, r, o.Services, o.Log)
}

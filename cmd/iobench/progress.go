package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/term"

	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/units"
)

// progress draws a one-line live status on a terminal; it draws nothing elsewhere or when quiet.
type progress struct {
	w  io.Writer
	on bool
}

func newProgress(w io.Writer, quiet bool) *progress {
	f, ok := w.(*os.File)
	return &progress{w: w, on: !quiet && ok && term.IsTerminal(int(f.Fd()))}
}

// second is an engine.Config.OnSecond callback.
func (p *progress) second(s engine.Snapshot) {
	if !p.on {
		return
	}
	var where string
	if s.Planned > 0 {
		where = fmt.Sprintf("%s/%s req", units.Count(s.Completed), units.Count(s.Planned))
	} else {
		where = fmt.Sprintf("%s/%s", s.Elapsed.Round(time.Second), s.Total)
	}
	fmt.Fprintf(p.w, "\r\033[K[%s] %s req/s now, p99 %s so far, %d errors", where,
		units.Rate(s.RateNow), units.Micros(s.P99), s.Errors)
}

// line shows a free-form status line (for phases without a snapshot).
func (p *progress) line(format string, args ...any) {
	if p.on {
		fmt.Fprintf(p.w, "\r\033[K"+format, args...)
	}
}

// done clears the line before the summary is printed.
func (p *progress) done() {
	if p.on {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

package cli

import (
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/term"

	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/units"
)

// Progress draws a one-line live status on a terminal; it draws nothing elsewhere or when quiet.
type Progress struct {
	w  io.Writer
	on bool
}

// NewProgress draws on w when w is a terminal and quiet is false.
func NewProgress(w io.Writer, quiet bool) *Progress {
	f, ok := w.(*os.File)
	return &Progress{w: w, on: !quiet && ok && term.IsTerminal(int(f.Fd()))}
}

// Second is an engine.Config.OnSecond callback.
func (p *Progress) Second(s engine.Snapshot) {
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

// Line shows a free-form status line (for phases without a snapshot).
func (p *Progress) Line(format string, args ...any) {
	if p.on {
		fmt.Fprintf(p.w, "\r\033[K"+format, args...)
	}
}

// Done clears the line before the summary is printed.
func (p *Progress) Done() {
	if p.on {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// On reports whether p draws, so that callers can stream other progress to the same terminal.
func (p *Progress) On() bool { return p.on }

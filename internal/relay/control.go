package relay

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// StatsCommand is the line that asks a running `iobench serve proxy` for its counts on its
// standard input; it answers with StatsPrefix and the Stats as JSON on one line of its output.
const (
	StatsCommand = "stats"
	StatsPrefix  = "stats "
)

// Control answers StatsCommand lines read from in with r's Stats on out, and takes b down for
// DownCommand lines (down.go; none when b is nil), until in ends.
func Control(r *Relay, b *Breaker, in io.Reader, out io.Writer) {
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		if d, ok, err := ParseDown(sc.Text()); ok && err == nil && b != nil {
			b.Break(d)
		}
		if strings.TrimSpace(sc.Text()) != StatsCommand {
			continue
		}
		_ = WriteStats(out, r.Stats())
	}
}

// WriteStats writes one stats line.
func WriteStats(w io.Writer, s Stats) error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s%s\n", StatsPrefix, b)
	return err
}

// ParseStats reads a stats line; ok is false for any other line.
func ParseStats(line string) (s Stats, ok bool) {
	rest, found := strings.CutPrefix(line, StatsPrefix)
	if !found || json.Unmarshal([]byte(rest), &s) != nil {
		return Stats{}, false
	}
	return s, true
}

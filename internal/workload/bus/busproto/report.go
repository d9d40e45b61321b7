package busproto

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Report kinds: the first byte of each line a consumer writes on its report stream.
const (
	ReportReady   = 'r' // "ready": consumers are up; written once per process
	ReportCommand = 'c' // "c SEQ UNIX_NS R": command SEQ committed, about to be acked
	ReportEvent   = 'e' // "e SEQ UNIX_NS R": event SEQ handled, about to be acked
	ReportBad     = 'x' // "x": a message that was neither a command nor an event, acked and dropped
	ReportFailed  = 'f' // "f SEQ UNIX_NS R": command SEQ's handler failed; the consumer rejects it
)

// Report is one line of the consumer's report stream (see the package documentation): what was
// handled, when (the consumer's wall clock in Unix nanoseconds) and whether the broker flagged the
// delivery as redelivered.
type Report struct {
	Kind        byte
	Seq         int64
	AtNS        int64
	Redelivered bool
}

// errReport is wrapped by ParseReport for a line that is not part of the protocol.
var errReport = errors.New("not a report line")

// AppendReport appends r as one protocol line, newline included.
func AppendReport(buf []byte, r Report) []byte {
	switch r.Kind {
	case ReportReady:
		return append(buf, "ready\n"...)
	case ReportBad:
		return append(buf, "x\n"...)
	}
	buf = append(buf, r.Kind, ' ')
	buf = strconv.AppendInt(buf, r.Seq, 10)
	buf = append(buf, ' ')
	buf = strconv.AppendInt(buf, r.AtNS, 10)
	if r.Redelivered {
		return append(buf, " 1\n"...)
	}
	return append(buf, " 0\n"...)
}

// ParseReport parses one line (with or without its newline). Lines that are not part of the
// protocol (a foreign consumer's own output) give an error and are ignored by the load side.
func ParseReport(line []byte) (Report, error) {
	line = bytes.TrimRight(line, "\r\n")
	switch {
	case string(line) == "ready":
		return Report{Kind: ReportReady}, nil
	case string(line) == "x":
		return Report{Kind: ReportBad}, nil
	case len(line) < 2 || (line[0] != ReportCommand && line[0] != ReportEvent && line[0] != ReportFailed) || line[1] != ' ':
		return Report{}, fmt.Errorf("%w: %.40q", errReport, line)
	}
	r := Report{Kind: line[0]}
	rest := line[2:]
	var ok bool
	if r.Seq, rest, ok = nextInt(rest); !ok {
		return Report{}, fmt.Errorf("%w: bad seq in %.40q", errReport, line)
	}
	if r.AtNS, rest, ok = nextInt(rest); !ok {
		return Report{}, fmt.Errorf("%w: bad time in %.40q", errReport, line)
	}
	switch string(rest) {
	case "0":
	case "1":
		r.Redelivered = true
	default:
		return Report{}, fmt.Errorf("%w: bad redelivered flag in %.40q", errReport, line)
	}
	return r, nil
}

// nextInt parses a non-negative decimal integer followed by one space.
func nextInt(b []byte) (int64, []byte, bool) {
	var n int64
	i := 0
	for ; i < len(b) && b[i] != ' '; i++ {
		c := b[i]
		if c < '0' || c > '9' || n > (math.MaxInt64-int64(c-'0'))/10 {
			return 0, nil, false
		}
		n = n*10 + int64(c-'0')
	}
	if i == 0 || i == len(b) {
		return 0, nil, false
	}
	return n, b[i+1:], true
}

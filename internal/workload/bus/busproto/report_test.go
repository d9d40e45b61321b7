package busproto

import (
	"strings"
	"testing"
)

func TestReportRoundTrip(t *testing.T) {
	for _, r := range []Report{
		{Kind: ReportReady},
		{Kind: ReportBad},
		{Kind: ReportCommand, Seq: 0, AtNS: 1, Redelivered: false},
		{Kind: ReportEvent, Seq: 99999, AtNS: 1763737200123456789, Redelivered: true},
	} {
		line := AppendReport(nil, r)
		if !strings.HasSuffix(string(line), "\n") || strings.Count(string(line), "\n") != 1 {
			t.Fatalf("%q is not one line", line)
		}
		got, err := ParseReport(line)
		if err != nil || got != r {
			t.Fatalf("ParseReport(%q) = %+v, %v; want %+v", line, got, err, r)
		}
	}
}

func TestParseReportRejects(t *testing.T) {
	for _, line := range []string{
		"", "readyy", "c", "c 1", "c 1 2", "c 1 2 2", "c -1 2 0", "c 1  2 0", "e x 2 0",
		"c 99999999999999999999 2 0", "q 1 2 0", "c 1 2 0 extra", "log: hello",
	} {
		if r, err := ParseReport([]byte(line)); err == nil {
			t.Errorf("ParseReport(%q) = %+v, want an error", line, r)
		}
	}
}

// FuzzParseReport checks that parsing never panics and that what parses prints back the same.
func FuzzParseReport(f *testing.F) {
	f.Add([]byte("c 1 2 0\n"))
	f.Add([]byte("e 12 1763737200123456789 1"))
	f.Add([]byte("ready"))
	f.Fuzz(func(t *testing.T, line []byte) {
		r, err := ParseReport(line)
		if err != nil {
			return
		}
		again, err := ParseReport(AppendReport(nil, r))
		if err != nil || again != r {
			t.Fatalf("%q -> %+v does not round-trip: %+v, %v", line, r, again, err)
		}
	})
}

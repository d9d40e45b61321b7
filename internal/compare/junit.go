package compare

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// junitSuites is the root of a JUnit XML report, in the layout Jenkins, GitLab and GitHub
// reporters read.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// JUnitSuite is the name of the test suite JUnit writes, which CI systems show.
const JUnitSuite = "iobench compare --fail-if"

// JUnit writes outcomes as JUnit XML: one test case per threshold, named as --fail-if spells it
// ("p99>+10%"). A crossed threshold has a failure whose message names every group that crossed
// it; a threshold that no record has the metric of is skipped; each case's system-out gives every
// group checked with its change.
func JUnit(w io.Writer, outcomes []Outcome) error {
	s := junitSuite{Name: JUnitSuite, Tests: len(outcomes)}
	for _, o := range outcomes {
		c := junitCase{Name: o.Threshold.String(), Classname: "iobench.compare", SystemOut: checkedText(o)}
		switch {
		case len(o.Checked) == 0:
			s.Skipped++
			c.Skipped = &junitMessage{Message: fmt.Sprintf("not checked: these records have no %s", o.Threshold.Metric)}
		case len(o.Crossed) > 0:
			s.Failures++
			c.Failure = failure(o)
		case len(o.Unjudged) > 0:
			s.Failures++
			c.Failure = notJudged(o)
		}
		s.Cases = append(s.Cases, c)
	}
	doc := junitSuites{Name: JUnitSuite, Tests: s.Tests, Failures: s.Failures, Skipped: s.Skipped, Suites: []junitSuite{s}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// failure says which groups crossed the threshold: all of them in the message, one a line in the text.
func failure(o Outcome) *junitMessage {
	lines := make([]string, len(o.Crossed))
	for i, v := range o.Crossed {
		lines[i] = v.String()
	}
	msg := fmt.Sprintf("%d of %d groups crossed %s: %s", len(o.Crossed), len(o.Checked), o.Threshold, strings.Join(lines, "; "))
	return &junitMessage{Message: msg, Type: "threshold", Text: strings.Join(lines, "\n")}
}

// notJudged says which groups a threshold could not judge, and why: a gate that cannot judge
// fails, so that it never passes silently.
func notJudged(o Outcome) *junitMessage {
	lines := make([]string, len(o.Unjudged))
	for i, r := range o.Unjudged {
		lines[i] = r.Group + ": " + r.Unjudged
	}
	msg := fmt.Sprintf("not judged: %d of %d groups: %s", len(o.Unjudged), len(o.Checked), strings.Join(lines, "; "))
	return &junitMessage{Message: msg, Type: "not judged", Text: strings.Join(lines, "\n")}
}

// checkedText lists the groups a threshold was checked against, one a line: "hello go-hello async
// closed: p99 +3.1% (p=0.400 n=3+3)".
func checkedText(o Outcome) string {
	var b strings.Builder
	for _, r := range o.Checked {
		fmt.Fprintf(&b, "%s: %s %s (%s)\n", r.Group, r.Metric, DeltaText(r), Evidence(r))
	}
	return b.String()
}

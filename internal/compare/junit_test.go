package compare

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"

	junit "github.com/joshdk/go-junit"
)

// junitTotals are the count attributes of a JUnit report's root and its suite, which CI systems
// show as the summary; decoded apart from what JUnit writes with.
type junitTotals struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Skipped  int `xml:"skipped,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Skipped  int    `xml:"skipped,attr"`
	} `xml:"testsuite"`
}

func TestJUnitReadsBackAsTheVerdicts(t *testing.T) {
	tb := Compare(recs("go", []float64{98, 99, 100, 101, 102}, []float64{990, 1000, 1010, 1005, 995}, 0),
		recs("go", []float64{93, 94, 95, 96, 97}, []float64{1090, 1100, 1110, 1105, 1095}, 0), Options{})
	var ths []Threshold
	for _, s := range []string{"p99>+5%", "p99>+10%", "throughput<-4%", "throughput<-5%", "errors>0%"} {
		th, err := ParseThreshold(s)
		if err != nil {
			t.Fatal(err)
		}
		ths = append(ths, th)
	}
	outcomes := Outcomes(tb, ths)
	outcomes = append(outcomes, Outcome{Threshold: Threshold{Metric: P999, Op: ">", Percent: 1}}) // nothing checked
	var b bytes.Buffer
	if err := JUnit(&b, outcomes); err != nil {
		t.Fatal(err)
	}
	suites, err := junit.Ingest(b.Bytes())
	if err != nil || len(suites) != 1 {
		t.Fatalf("go-junit read %d suites, error %v:\n%s", len(suites), err, b.String())
	}
	s := suites[0]
	if s.Name != JUnitSuite || len(s.Tests) != len(outcomes) {
		t.Fatalf("suite %q with %d tests, want %q with %d", s.Name, len(s.Tests), JUnitSuite, len(outcomes))
	}
	var failed, passed, skipped int
	for i, o := range outcomes {
		c := s.Tests[i]
		want := junit.StatusPassed
		switch {
		case len(o.Checked) == 0:
			want, skipped = junit.StatusSkipped, skipped+1
		case len(o.Crossed) > 0:
			want, failed = junit.StatusFailed, failed+1
		default:
			passed++
		}
		if c.Name != o.Threshold.String() || c.Status != want {
			t.Errorf("case %d: %q %s, want %q %s", i, c.Name, c.Status, o.Threshold, want)
		}
		for _, v := range o.Crossed {
			if !strings.Contains(c.Message, v.String()) {
				t.Errorf("case %s: message %q lacks %q", c.Name, c.Message, v)
			}
		}
		if len(o.Checked) > 0 && !strings.Contains(c.SystemOut, o.Checked[0].Group) {
			t.Errorf("case %s: system-out %q does not name the group checked", c.Name, c.SystemOut)
		}
	}
	if failed != 2 || passed != 3 || skipped != 1 {
		t.Errorf("verdicts %d failed, %d passed, %d skipped; the thresholds above give 2, 3, 1", failed, passed, skipped)
	}
	if tot := s.Totals; tot.Failed != failed || tot.Passed != passed || tot.Skipped != skipped {
		t.Errorf("go-junit totals %+v", tot)
	}
	var attrs junitTotals
	if err := xml.Unmarshal(b.Bytes(), &attrs); err != nil || len(attrs.Suites) != 1 {
		t.Fatalf("decode: %v, %d suites", err, len(attrs.Suites))
	}
	if a, su := attrs, attrs.Suites[0]; a.Tests != len(outcomes) || a.Failures != failed || a.Skipped != skipped ||
		su.Tests != a.Tests || su.Failures != a.Failures || su.Skipped != a.Skipped {
		t.Errorf("count attributes %+v", attrs)
	}
}

func TestCheckIsTheCrossedOutcomes(t *testing.T) {
	tb := Compare(recs("go", []float64{100, 100}, nil, 0), recs("go", []float64{80, 80}, nil, 10), Options{AllowFew: true})
	ths := []Threshold{{Metric: Throughput, Op: "<", Percent: -10}, {Metric: Errors, Op: ">", Percent: 0}, {Metric: P99, Op: ">", Percent: 50}}
	var want []Violation
	for _, o := range Outcomes(tb, ths) {
		if len(o.Checked) != 1 {
			t.Errorf("%s checked %d rows, want the one group's", o.Threshold, len(o.Checked))
		}
		want = append(want, o.Crossed...)
	}
	got := Check(tb, ths)
	if len(got) != 2 || len(got) != len(want) {
		t.Fatalf("Check gave %v, the outcomes %v; want throughput and errors crossed", got, want)
	}
}

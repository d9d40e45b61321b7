package scenario

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// stringsKnown is testKnown with a Strings parameter, slo, whose texts must start with p.
func stringsKnown() Known {
	k := testKnown()
	k.Workloads["hello"].Params["slo"] = ParamSpec{Type: Strings, Check: func(v any) error {
		if s, _ := v.(string); !strings.HasPrefix(s, "p") && !strings.HasPrefix(s, "errors") {
			return errBadSLO
		}
		return nil
	}}
	return k
}

var errBadSLO = errors.New("not an SLO")

// TestStringsParamIsOneValue: a list under a Strings parameter is one value that all its texts
// make up, not a matrix; a single text is a list of one.
func TestStringsParamIsOneValue(t *testing.T) {
	for src, want := range map[string][]string{
		`slo: ["p99<20ms", "errors<0.1%"]`: {"p99<20ms", "errors<0.1%"},
		`slo: "p99<10ms"`:                  {"p99<10ms"},
	} {
		s, err := Parse("s.yaml", []byte("name: s\nworkload: hello\nimpls: [go-hello]\nparams:\n  "+src+"\nrepeats: 1\n"), stringsKnown())
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if len(s.Runs) != 1 {
			t.Fatalf("%s: %d runs, want one: a list of SLOs is not a sweep", src, len(s.Runs))
		}
		if r := s.Runs[0]; !r.Given["slo"] || r.Given["load"] || r.Params["load"] != "closed" {
			t.Errorf("%s: given %v, params %v: want slo given, load its default", src, r.Given, r.Params)
		}
		if _, ok := s.Peer(s.Runs[0], "load", "closed"); !ok {
			t.Errorf("%s: a run is its own peer by load: closed: the slo list compares", src)
		}
		if got, _ := s.Runs[0].Params["slo"].([]string); !slices.Equal(got, want) {
			t.Errorf("%s: slo %#v, want %#v", src, s.Runs[0].Params["slo"], want)
		}
	}
}

// TestStringsParamChecksEachText: each text is checked; an empty list is refused.
func TestStringsParamChecksEachText(t *testing.T) {
	for src, want := range map[string]string{
		`slo: ["p99<20ms", "q<1"]`: "not an SLO",
		`slo: []`:                  "empty list",
		`slo: [1]`:                 "want text",
	} {
		_, err := Parse("s.yaml", []byte("name: s\nworkload: hello\nimpls: [go-hello]\nparams:\n  "+src+"\nrepeats: 1\n"), stringsKnown())
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one saying %q", src, err, want)
		}
	}
}

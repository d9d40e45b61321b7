package hello

import (
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/rawhttp/rawhttptest"
	"github.com/iobench/iobench/internal/scenario"
)

const manifestHead = "name: go-x\nlanguage: go\nvariants: [{name: a, mode: async}, {name: h2, mode: async}]\n" +
	"start: {command: [iobench, serve, hello]}\nready: {tcp: listen}\nworkloads:\n  hello:\n    routes: [/]\n"

// TestProtocolOf: a variant that protocols: names is loaded over its protocol, the others (and
// the default variant, named "") over HTTP/1.1; an impl that declares no protocols speaks HTTP/1.1.
func TestProtocolOf(t *testing.T) {
	m, err := impl.Parse([]byte(manifestHead+"    protocols: {h2: h2c}\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	for variant, want := range map[string]string{"h2": ProtocolH2C, "a": ProtocolHTTP1, "": ProtocolHTTP1, "nope": ProtocolHTTP1} {
		if got := ProtocolOf(m, variant); got != want {
			t.Errorf("ProtocolOf(%q) = %q, want %q", variant, got, want)
		}
	}
	plain, err := impl.Parse([]byte(manifestHead), "")
	if err != nil {
		t.Fatal(err)
	}
	if got := ProtocolOf(plain, "h2"); got != ProtocolHTTP1 {
		t.Errorf("no protocols: ProtocolOf(h2) = %q", got)
	}
}

// TestSectionProblems: protocols: must name variants of the impl and known protocols.
func TestSectionProblems(t *testing.T) {
	_, err := impl.Parse([]byte(manifestHead+"    protocols: {h3: h2c, a: quic}\n"), "")
	for _, want := range []string{
		`workloads.hello.protocols.h3: unknown variant "h3" (use one of a, h2)`,
		`workloads.hello.protocols.a: unknown protocol "quic" (use one of http/1.1, h2c)`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
}

// TestProtocolParams: an HTTP/2 run gets its streams (the default when unset, the scenario's
// when set), an HTTP/1.1 run none, and the run's own map is left as it was.
func TestProtocolParams(t *testing.T) {
	cases := []struct {
		params map[string]any
		h2c    bool
		want   any // the streams of the result; nil for none
	}{
		{map[string]any{"load": "closed"}, true, int64(DefaultStreams)},
		{map[string]any{"streams": int64(50)}, true, int64(50)},
		{map[string]any{"streams": int64(50)}, false, nil},
		{map[string]any{"load": "closed"}, false, nil},
	}
	for _, tc := range cases {
		before := len(tc.params)
		got := protocolParams(scenario.Run{Params: tc.params}, tc.h2c).Params
		if v, ok := got["streams"]; v != tc.want || ok != (tc.want != nil) {
			t.Errorf("%v, h2c %v: streams %v, want %v", tc.params, tc.h2c, v, tc.want)
		}
		if len(tc.params) != before {
			t.Errorf("%v, h2c %v: the run's own params changed", tc.params, tc.h2c)
		}
	}
}

// TestCheckH2C: verify's h2c check passes on the server that speaks it (ServeHTTP2) and says
// what is wrong with one that does not (the raw HTTP/1.1 server).
func TestCheckH2C(t *testing.T) {
	h2 := strings.TrimPrefix(rawhttptest.URL(t, ServeHTTP2), "http://")
	if problems := checkH2C(t.Context(), h2); len(problems) > 0 {
		t.Errorf("ServeHTTP2: %v", problems)
	}
	raw := strings.TrimPrefix(rawhttptest.URL(t, Serve), "http://")
	if problems := checkH2C(t.Context(), raw); len(problems) == 0 || !strings.Contains(problems[0], "does the variant speak h2c") {
		t.Errorf("raw HTTP/1.1 server: %v, want the failure named", problems)
	}
}

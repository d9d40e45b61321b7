package impl

import (
	"strings"
	"testing"
)

func TestJudge(t *testing.T) {
	// A finding that only a loaded run shows (every shipped one is seen by verify now).
	Findings["test-load-only"] = Finding{Doc: "seen under load only"}
	t.Cleanup(func() { delete(Findings, "test-load-only") })
	clm := RouteProblem{Finding: "content-length-mismatch", Msg: "GET /: Content-Length is 12 but \"\\n\" followed the body"}
	other := RouteProblem{Msg: "GET /iobench-no-such-route: status 200, want 404"}
	cases := []struct {
		name                            string
		expect                          []string
		problems                        []RouteProblem
		reproduced, failures, unchecked int
		failure                         string
	}{
		{"clean", nil, nil, 0, 0, 0, ""},
		{"unexpected flaw fails", nil, []RouteProblem{clm}, 0, 1, 0, "content-length-mismatch: GET /"},
		{"expected flaw reproduced", []string{"content-length-mismatch"}, []RouteProblem{clm, other}, 1, 1, 0, "status 200, want 404"},
		{"expected flaw missing", []string{"content-length-mismatch", "no-keepalive"}, []RouteProblem{clm}, 1, 1, 0,
			"expected seed flaw no-keepalive not reproduced"},
		{"flaw seen only under load", []string{"test-load-only"}, nil, 0, 0, 1, ""},
		{"connection limit expected but not seen", []string{"connection-limit"}, nil, 0, 1, 0, "expected seed flaw connection-limit not reproduced"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := Judge(Variant{Name: "seed", Expect: tc.expect}, tc.problems)
			if len(v.Reproduced) != tc.reproduced || len(v.Failures) != tc.failures || len(v.Unchecked) != tc.unchecked {
				t.Fatalf("verdict %+v", v)
			}
			if tc.failure != "" && !strings.Contains(strings.Join(v.Failures, "\n"), tc.failure) {
				t.Fatalf("failures %q lack %q", v.Failures, tc.failure)
			}
		})
	}
}

package httpbench

import (
	"testing"

	"github.com/iobench/iobench/internal/result"
)

func TestNoSuccess(t *testing.T) {
	for _, tc := range []struct {
		name        string
		counts      result.Counts
		interrupted bool
		want        string
	}{
		{"every request failed", result.Counts{Failed: 12, Errors: map[string]int64{"timeout": 2, "status": 10}}, false,
			"no request succeeded: 12 failed (status 10, timeout 2); every figure above describes errors"},
		{"one succeeded", result.Counts{Succeeded: 1, Failed: 12, Errors: map[string]int64{"status": 12}}, false, ""},
		{"nothing sent", result.Counts{}, false, ""},
		{"interrupted", result.Counts{Failed: 3, Errors: map[string]int64{"read": 3}}, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := NoSuccess(&result.Record{Counts: tc.counts, Interrupted: tc.interrupted})
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

package httpbench

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/iobench/iobench/internal/result"
)

// NoSuccess is the one-line error of a run in which requests were sent and none succeeded, so
// that its command exits 1 (a run that failed) after printing what it measured: "no request
// succeeded: 1200 failed (status 1200); every figure above describes errors". It is nil when a
// request succeeded, when none was sent, and for an interrupted run (exit 130 says that).
func NoSuccess(rec *result.Record) error {
	c := rec.Counts
	if c.Succeeded > 0 || c.Failed == 0 || rec.Interrupted {
		return nil
	}
	var classes []string
	for _, k := range slices.Sorted(maps.Keys(c.Errors)) {
		if n := c.Errors[k]; n > 0 {
			classes = append(classes, fmt.Sprintf("%s %d", k, n))
		}
	}
	return fmt.Errorf("no request succeeded: %d failed (%s); every figure above describes errors", c.Failed, strings.Join(classes, ", "))
}

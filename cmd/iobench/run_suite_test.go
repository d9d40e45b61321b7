package main

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/suite"
	"github.com/iobench/iobench/internal/workload"
	"github.com/iobench/iobench/internal/workload/cachequeue"
)

// TestSuiteFailsByRecord: a run fails the suite when it measured nothing and returned an error,
// or when its record failed its own check (a cachequeue store that counted less than it
// answered), and its variant expects no such failure; errors alone fail no run.
func TestSuiteFailsByRecord(t *testing.T) {
	rec := func(edit func(*result.Record)) *result.Record {
		r := &result.Record{Workload: "cachequeue", StartedAt: time.Unix(1, 0), Counts: result.Counts{Attempted: 10, Succeeded: 10}}
		r.SetSection(cachequeue.Name, &cachequeue.Record{Counted: true, Detail: "10 counted for 10 responses"})
		edit(r)
		v := workload.Judge(r, nil)
		r.Verification = &v
		return r
	}
	for _, tc := range []struct {
		name string
		o    suite.Outcome
		want string
	}{
		{"verified", suite.Outcome{Record: rec(func(*result.Record) {})}, ""},
		{"a few resets", suite.Outcome{Record: rec(func(r *result.Record) {
			r.Counts.Failed, r.Counts.Errors = 2, map[string]int64{"read": 2}
		})}, ""},
		{"the store's count failed", suite.Outcome{Record: rec(func(r *result.Record) {
			c := cachequeue.Section(r)
			c.Counted, c.Detail = false, "7 counted for 10 responses"
		})}, "not verified: the store's count: 7 counted for 10 responses"},
		{"no record", suite.Outcome{Err: errors.New("impl x exited before it was ready")}, "impl x exited before it was ready"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := failed(tc.o); got != tc.want || (tc.want != "" && !strings.HasPrefix(got, tc.want)) {
				t.Errorf("failed = %q, want %q", got, tc.want)
			}
		})
	}
}

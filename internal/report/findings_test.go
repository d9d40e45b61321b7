package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/workload/bus"
	"github.com/iobench/iobench/internal/workload/cachequeue"
	"github.com/iobench/iobench/internal/workload/fanout"
	"github.com/iobench/iobench/internal/workload/hello"
)

// The audit's findings, each shown on edited copies of real seed records (testdata/seeds).

// seedRecord returns the record of testdata/seeds whose run id is id, from recs.
func seedRecord(t *testing.T, recs []*result.Record, id string) *result.Record {
	t.Helper()
	for _, r := range recs {
		if runID(r) == id {
			return r
		}
	}
	t.Fatalf("no record of run %s in testdata/seeds", id)
	return nil
}

// markdownOf renders summary.md of recs.
func markdownOf(t *testing.T, recs []*result.Record) string {
	t.Helper()
	var b bytes.Buffer
	if err := Markdown(&b, recs); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestFailedCountCheckNeverCounts (finding 1): a fanout run whose upstream's count failed, or a
// cachequeue run whose store's count did, is not verified in the summary, and is left out of the
// claim it belongs to, named with why.
func TestFailedCountCheckNeverCounts(t *testing.T) {
	for _, tc := range []struct {
		name, says string
		ids        []string
		edit       func(*result.Record)
		why        string
	}{
		{"fanout", "sendAsync makes the service faster than send", []string{"seed5-fanout-s2.php-fanout.route-_async.r1", "seed5-fanout-s2.php-fanout.route-_async.r2"},
			func(r *result.Record) {
				f := fanout.Section(r)
				f.CallsVerified, f.UpstreamCalls, f.Calls = false, 0, "0 calls for 160 responses"
			}, "the upstream's count: 0 calls for 160 responses"},
		{"cachequeue", "phpredis is faster than Predis", []string{"seed3-php.php-cachequeue.route-_cache_redis.r1", "seed3-php.php-cachequeue.route-_cache_redis.r2"},
			func(r *result.Record) {
				c := cachequeue.Section(r)
				c.Counted, c.Detail = false, "0 counted for 1746 responses"
			}, "the store's count: 0 counted for 1746 responses"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recs := loadSeedRecords(t)
			for _, id := range tc.ids {
				rec := seedRecord(t, recs, id)
				tc.edit(rec)
				if Status(rec) != StatusFailed {
					t.Errorf("%s: status %q after its count failed", id, Status(rec))
				}
			}
			out := markdownOf(t, recs)
			if !strings.Contains(out, "**not verified**: "+md(tc.why)) {
				t.Errorf("summary.md does not say the runs were not verified (%s)", tc.why)
			}
			for _, s := range seedSections(recs) {
				for _, c := range s.Claims {
					if strings.HasPrefix(c.Claim.Says, tc.says) && (c.Outcome != ClaimUnmeasured || !strings.Contains(c.Sentence, tc.ids[0]+" ("+tc.why+")")) {
						t.Errorf("claim %q: %s", c.Claim.Says, c.Sentence)
					}
				}
			}
		})
	}
}

// TestReportOrderFree (finding 2): two suites of the same seeds, whose run ids repeat, give the
// same summary.md in either order, and the same records given twice give it too.
func TestReportOrderFree(t *testing.T) {
	a, b := loadSeedRecords(t), loadSeedRecords(t)
	for i, r := range b { // a second suite a day later, each figure 40% lower
		r.StartedAt = r.StartedAt.AddDate(0, 0, 1)
		r.Throughput.Mean *= 0.6
		r.Environment.Hostname = "second"
		b[i] = r
	}
	ab := markdownOf(t, append(append([]*result.Record{}, a...), b...))
	ba := markdownOf(t, append(append([]*result.Record{}, b...), a...))
	if ab != ba {
		t.Error("summary.md of A then B differs from that of B then A")
	}
	if twice := markdownOf(t, append(append(append([]*result.Record{}, a...), b...), a...)); twice != ab {
		t.Error("the same records given twice change summary.md")
	}
}

// TestFlawNeedsItsSignature (finding 5): a seed flaw is reproduced only with its own signature.
// A messenger run that lost commands, or an amp-loop run whose server crashed or was never seen
// turning connections away, is no flaw reproduced.
func TestFlawNeedsItsSignature(t *testing.T) {
	recs := loadSeedRecords(t)
	messenger := seedRecord(t, recs, "seed1-bus.php-messenger_seed.r1")
	b := bus.Section(messenger)
	b.Verified, b.FailedCommands = false, 40
	messenger.Counts.Errors = map[string]int64{"handler": 40}
	if Status(messenger) != StatusFlaw {
		t.Fatalf("requeues with nothing lost: %q, want %q", Status(messenger), StatusFlaw)
	}
	b.LostCommands = 1150
	if Status(messenger) != StatusFailed {
		t.Errorf("1,150 of 5,000 commands lost: %q, want %q", Status(messenger), StatusFailed)
	}

	amp := seedRecord(t, recs, "seed4-hello.php-amp-loop_seed.load-closed.r1")
	if Status(amp) == StatusFlaw {
		t.Error("read errors without a probe of the connections pass as the connection limit")
	}
	amp.SetSection(hello.ConnLimitKey, &hello.ConnLimit{Opened: 100, Answered: 60, TurnedAway: 40})
	if Status(amp) != StatusFlaw {
		t.Errorf("60 of 100 answered, 40 turned away: %q, want %q", Status(amp), StatusFlaw)
	}
	amp.Verification = &result.Verification{Why: "impl php-amp-loop exited during the run"}
	if Status(amp) != StatusFailed {
		t.Errorf("a crash: %q, want %q", Status(amp), StatusFailed)
	}
	amp.Verification = nil
	amp.SetSection(hello.ConnLimitKey, &hello.ConnLimit{Opened: 100, TurnedAway: 100})
	if Status(amp) == StatusFlaw {
		t.Error("a server that answered nothing after the run passes as the connection limit")
	}
}

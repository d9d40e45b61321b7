package publish

import (
	"slices"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/workload"
)

// TestRatesTable: each group of publish runs gets the median broker-accepted rate beside the
// median client write rate (the publisher's own timing where iobench could not count), their
// ratio and the drain; a group without a client rate shows none.
func TestRatesTable(t *testing.T) {
	rec := func(counted string, broker, client, self float64, drain time.Duration) *result.Record {
		r := &result.Record{Workload: Name}
		p := &Record{CountedBy: counted, Broker: Rate{Mean: broker}, Client: Rate{Mean: client}, Drain: result.Duration(drain)}
		if self > 0 {
			p.SelfReported = &SelfReport{Rate: self}
		}
		r.SetSection(Name, p)
		return r
	}
	groups := []workload.TableGroup{
		{Workload: Name, Label: "go-publisher:pool", Records: []*result.Record{
			rec("confirms", 10000, 30000, 0, 2*time.Second), rec("confirms", 12000, 30000, 0, 4*time.Second)}},
		{Workload: Name, Label: "python-pika-publisher:single", Records: []*result.Record{
			rec("queue", 500, 0, 2000, 0), rec("queue+consumed", 700, 0, 2000, 0)}},
		{Workload: Name, Label: "uncounted", Records: []*result.Record{rec("queue", 80, 0, 0, time.Millisecond)}},
	}
	got := ratesTable(groups).Rows
	want := [][]string{
		{"go-publisher:pool", "confirms", "11,000 msg/s", "30,000 msg/s", "2.73×", "3.00s"},
		{"python-pika-publisher:single", "queue, queue+consumed", "600 msg/s", "2,000 msg/s", "3.33×", "0.00us"},
		{"uncounted", "queue", "80.00 msg/s", "–", "–", "1.00ms"},
	}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("rows\n%q\nwant\n%q", got, want)
	}
}

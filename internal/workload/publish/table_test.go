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

// TestLeftTable: a variant that improves on a seed-faithful one is set beside it, by what the
// broker accepted and what the client wrote; a group without its seed-faithful one, or of
// another impl or load, gets no row.
func TestLeftTable(t *testing.T) {
	rec := func(impl, variant, of string, broker, self float64) *result.Record {
		r := &result.Record{Workload: Name, Impl: impl}
		r.SetSection(Name, &Record{Variant: variant, ImprovesOn: of, Broker: Rate{Mean: broker}, SelfReported: &SelfReport{Rate: self}})
		return r
	}
	group := func(label, load string, recs ...*result.Record) workload.TableGroup {
		return workload.TableGroup{Workload: Name, Label: label, Load: load, Records: recs}
	}
	groups := []workload.TableGroup{
		group("go-publisher:pool", "", rec("go-publisher", "pool", "", 10000, 20000), rec("go-publisher", "pool", "", 12000, 20000)),
		group("go-publisher:pool-fast", "", rec("go-publisher", "pool-fast", "pool", 33000, 90000)),
		group("go-publisher:ultra-fast", "", rec("go-publisher", "ultra-fast", "ultra", 50000, 100000)),
		group("other:pool-fast", "", rec("other", "pool-fast", "pool", 1, 1)),
		group("go-publisher:pool-fast", "c2", rec("go-publisher", "pool-fast", "pool", 1, 1)),
	}
	got := leftTable(groups).Rows
	want := [][]string{{"go-publisher:pool", "go-publisher:pool-fast", "11,000 msg/s", "33,000 msg/s", "3.00×", "20,000 msg/s", "90,000 msg/s", "4.50×"}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("rows\n%q\nwant\n%q", got, want)
	}
}

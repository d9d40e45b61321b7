package export_test

import (
	"bytes"
	"encoding/csv"
	"errors"
	"slices"
	"strconv"
	"testing"

	"github.com/iobench/iobench/internal/fail"
	"github.com/iobench/iobench/internal/report/export"
	"github.com/iobench/iobench/internal/result"
)

// readCSV reads an export back with encoding/csv and returns its header and rows.
func readCSV(t *testing.T, rec *result.Record) ([]string, [][]string) {
	t.Helper()
	var b bytes.Buffer
	if err := export.CSV(&b, rec); err != nil {
		t.Fatal(err)
	}
	all, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatalf("not CSV: %v\n%s", err, b.String())
	}
	if len(all) != len(rec.Series)+1 {
		t.Fatalf("%d rows, want a header and %d points", len(all), len(rec.Series))
	}
	return all[0], all[1:]
}

// cell returns a row's value in column name as a number; ok is false for an empty cell.
func cell(t *testing.T, head, row []string, name string) (float64, bool) {
	t.Helper()
	i := slices.Index(head, name)
	if i < 0 {
		t.Fatalf("no column %q in %q", name, head)
	}
	if row[i] == "" {
		return 0, false
	}
	v, err := strconv.ParseFloat(row[i], 64)
	if err != nil {
		t.Fatalf("column %s: %v", name, err)
	}
	return v, true
}

func TestCSVOfALiveRun(t *testing.T) {
	rec := liveRecord(t)
	head, rows := readCSV(t, rec)
	if want := []string{"t", "span_s", "completed", "errors", "p50_us", "p99_us"}; !slices.Equal(head, want) {
		t.Fatalf("header %q, want %q", head, want)
	}
	var completed float64
	for i, p := range rec.Series {
		for name, want := range map[string]float64{"t": float64(p.Second), "span_s": p.Span, "completed": float64(p.Completed),
			"errors": float64(p.Errors), "p50_us": p.P50, "p99_us": p.P99} {
			if got, _ := cell(t, head, rows[i], name); got != want {
				t.Errorf("second %d %s = %v, the record has %v", i+1, name, got, want)
			}
		}
		c, _ := cell(t, head, rows[i], "completed")
		completed += c
	}
	if completed == 0 || completed > float64(rec.Counts.Attempted) {
		t.Errorf("the series completed %v requests in all, the run attempted %d", completed, rec.Counts.Attempted)
	}
}

func TestCSVOfABusRun(t *testing.T) {
	rec := savedRecord(t, "bus-sync-1.json")
	head, rows := readCSV(t, rec)
	if want := []string{"t", "span_s", "completed", "errors", "commands", "depth", "events", "fill"}; !slices.Equal(head, want) {
		t.Fatalf("header %q, want %q (no latency columns: the bus's series has none)", head, want)
	}
	for i, p := range rec.Series {
		for k, want := range p.Values {
			if got, ok := cell(t, head, rows[i], k); !ok || got != want {
				t.Errorf("second %d %s = %v, the record has %v", i+1, k, got, want)
			}
		}
	}
}

func TestCSVLeavesMissingValuesEmpty(t *testing.T) {
	rec := &result.Record{Workload: "publish", Series: []result.Point{
		{Second: 1, Span: 1, Completed: 5, Values: map[string]float64{"confirmed": 5}},
		{Second: 2, Span: 0.5, Completed: 2, Values: map[string]float64{"queue_depth": 3}},
	}}
	head, rows := readCSV(t, rec)
	if v, ok := cell(t, head, rows[0], "queue_depth"); ok {
		t.Errorf("second 1 has no queue_depth, got %v", v)
	}
	if v, ok := cell(t, head, rows[1], "queue_depth"); !ok || v != 3 {
		t.Errorf("second 2 queue_depth %v %v, want 3", v, ok)
	}
}

func TestCSVWithoutASeries(t *testing.T) {
	var b bytes.Buffer
	err := export.CSV(&b, &result.Record{Workload: "publish"})
	if !errors.Is(err, fail.ErrBadInput) || b.Len() > 0 {
		t.Errorf("error %v, %d bytes written; want bad input and nothing written", err, b.Len())
	}
}

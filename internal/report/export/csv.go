package export

import (
	"encoding/csv"
	"io"
	"slices"
	"strconv"

	"github.com/iobench/iobench/internal/fail"
	"github.com/iobench/iobench/internal/result"
)

// CSV writes rec's per-second series: a header row, then one row per point of the series, with
// the record's own field names: t (1-based second), span_s, completed, errors, p50_us and p99_us
// when any point has them, then the workload's per-second values (the bus's fill, commands,
// events, depth; publish's client_written, confirmed, ...) in name order. A point without a value
// leaves its cell empty. A record without a series is bad input.
func CSV(w io.Writer, rec *result.Record) error {
	if len(rec.Series) == 0 {
		return fail.BadInput("this %s record has no per-second series; use --format openmetrics", rec.Workload)
	}
	cols := columns(rec.Series)
	cw := csv.NewWriter(w)
	head := []string{"t", "span_s", "completed", "errors"}
	if cols.latency {
		head = append(head, "p50_us", "p99_us")
	}
	if err := cw.Write(append(head, cols.values...)); err != nil {
		return err
	}
	for _, p := range rec.Series {
		row := []string{strconv.Itoa(p.Second), num(p.Span), strconv.FormatInt(p.Completed, 10), strconv.FormatInt(p.Errors, 10)}
		if cols.latency {
			row = append(row, num(p.P50), num(p.P99))
		}
		for _, k := range cols.values {
			v, ok := p.Values[k]
			cell := ""
			if ok {
				cell = num(v)
			}
			row = append(row, cell)
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// seriesColumns are the optional columns of a series: whether it has latency percentiles, and
// the names of its per-second values.
type seriesColumns struct {
	latency bool
	values  []string
}

func columns(series []result.Point) seriesColumns {
	var c seriesColumns
	for _, p := range series {
		c.latency = c.latency || p.P50 != 0 || p.P99 != 0
		for k := range p.Values {
			if !slices.Contains(c.values, k) {
				c.values = append(c.values, k)
			}
		}
	}
	slices.Sort(c.values)
	return c
}

// num formats v in the fewest digits that read back as v.
func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// Tabular is a record section that is a table of its own (the capacity search's steps): its
// header and rows, as CSV writes them.
type Tabular interface {
	CSVRows() (head []string, rows [][]string)
}

// Table writes, as CSV, the table of rec's first section (in key order) that is one, and
// reports whether it had one; a record with none writes nothing (CSV writes its series then).
func Table(w io.Writer, rec *result.Record) (bool, error) {
	keys := make([]string, 0, len(rec.Sections))
	for k := range rec.Sections {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		t, ok := rec.Sections[k].(Tabular)
		if !ok {
			continue
		}
		head, rows := t.CSVRows()
		cw := csv.NewWriter(w)
		cw.Write(head)
		cw.WriteAll(rows) // flushes
		return true, cw.Error()
	}
	return false, nil
}

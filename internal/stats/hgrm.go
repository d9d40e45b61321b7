package stats

import (
	"bytes"
	"fmt"
	"io"
)

// hgrmHeader is the column line HdrHistogram's C library (and so wrk2's "Detailed Percentile
// spectrum") prints; hdrhistogram-go separates the same four names by tabs.
var hgrmHeader = fmt.Sprintf("%12s %12s %12s %12s\n", "Value", "Percentile", "TotalCount", "1/(1-Percentile)")

// PrintPercentiles writes h's percentile distribution in the text HdrHistogram's plotter reads
// (the .hgrm layout of HistogramLogProcessor and wrk2): a column line, then Value, Percentile (0-1),
// TotalCount and 1/(1-Percentile) for ticksPerHalf points per halving of the distance to 100%,
// then the Mean/StdDeviation, Max/Total count and Buckets/SubBuckets footer. Values are microseconds
// divided by scale: 1000 prints milliseconds, as wrk2 does.
func (h *Histogram) PrintPercentiles(w io.Writer, ticksPerHalf int32, scale float64) error {
	ticksPerHalf = max(ticksPerHalf, 1)
	var b bytes.Buffer
	if _, err := h.h.PercentilesPrint(&b, ticksPerHalf, scale); err != nil {
		return err
	}
	body := b.Bytes()
	if i := bytes.IndexByte(body, '\n'); i >= 0 {
		body = body[i+1:] // the library's own column line, tab-separated
	}
	if _, err := io.WriteString(w, hgrmHeader); err != nil {
		return err
	}
	_, err := w.Write(body)
	return err
}

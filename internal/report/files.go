package report

import (
	"bytes"
	"path/filepath"
	"time"

	"github.com/iobench/iobench/internal/result"
)

// Files are the report files written for a set of records.
type Files struct {
	Markdown string // path of summary.md
	HTML     string // path of report.html
	HTMLSize int    // bytes
}

// WriteFiles writes summary.md and report.html for recs into dir, each atomically.
func WriteFiles(dir string, recs []*result.Record, opt HTMLOptions) (Files, error) {
	var md, page bytes.Buffer
	if err := Markdown(&md, recs); err != nil {
		return Files{}, err
	}
	if opt.Generated.IsZero() {
		opt.Generated = time.Now()
	}
	if opt.Source == "" {
		opt.Source = dir
	}
	if err := HTML(&page, recs, opt); err != nil {
		return Files{}, err
	}
	f := Files{Markdown: filepath.Join(dir, "summary.md"), HTML: filepath.Join(dir, "report.html"), HTMLSize: page.Len()}
	if err := result.WriteFileAtomic(f.Markdown, md.Bytes()); err != nil {
		return Files{}, err
	}
	return f, result.WriteFileAtomic(f.HTML, page.Bytes())
}

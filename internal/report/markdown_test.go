package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/golden"
	"github.com/iobench/iobench/internal/result"
)

func TestMarkdownGolden(t *testing.T) {
	hostile := crafted("http", "evil|<b>x</b>\n*", "", "closed", 12.345, 2500, 9)
	tests := []struct {
		name string
		recs []*result.Record
	}{
		{"summary-real", loadRecords(t)},
		{"summary-hostile", []*result.Record{hostile}},
		{"summary-empty", nil},
		// The board's edges (ours ∞×, 0× and not measured). The seed's id stays plain: markdownSeeds
		// writes it as it is into its links and anchors.
		{"summary-board", edgeSeed("edge", "evil|<b>x</b>\n*")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Markdown(&b, tt.recs); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", tt.name+".md.golden"), b.Bytes())
			if strings.Contains(b.String(), "<b>") || strings.Contains(b.String(), "evil|") {
				t.Errorf("outside string not escaped:\n%s", b.String())
			}
		})
	}
}

func TestSummaryText(t *testing.T) {
	var b bytes.Buffer
	if err := SummaryText(&b, loadRecords(t)); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "summary-real.txt.golden"), b.Bytes())
}

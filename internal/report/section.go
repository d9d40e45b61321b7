package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/iobench/iobench/internal/workload"
)

// section is a table a report adds after the impls side by side (what limited each run, the
// workloads' own tables: workload.Table), written alike in the terminal, summary.md and
// report.html.
type section workload.Table

// sections returns the sections that have rows, in report order: what limited every group's
// runs, then the workloads' own tables of the groups that belong to no seed's section (those go
// in the seed's, seedSections).
func sections(groups []Group) []section {
	var out []section
	for _, s := range []section{limitSection(groups), capacitySection(groups)} {
		if len(s.Rows) > 0 {
			out = append(out, s)
		}
	}
	return append(out, workloadSections(unclaimed(groups))...)
}

// markdown writes the section under a heading of its own.
func (s section) markdown(b *strings.Builder) { s.markdownAt(b, "##") }

// markdownAt writes the section under a heading of the given level ("##", "###").
func (s section) markdownAt(b *strings.Builder, level string) {
	fmt.Fprintf(b, "\n%s %s\n\n%s\n\n", level, s.Title, s.Note)
	b.WriteString("| " + strings.Join(s.Head, " | ") + " |\n|")
	for i := range s.Head {
		if i < len(s.Num) && s.Num[i] {
			b.WriteString("--:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	for _, row := range s.Rows {
		c := make([]string, len(row))
		for i := range row {
			c[i] = md(row[i])
		}
		b.WriteString("| " + strings.Join(c, " | ") + " |\n")
	}
}

// text writes the section for the terminal.
func (s section) text(w io.Writer) error {
	fmt.Fprintf(w, "\n%s\n%s\n", s.Title, s.Note)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(s.Head, "\t"))
	for _, row := range s.Rows {
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	return tw.Flush()
}

// markdownSections writes every section of the groups.
func markdownSections(b *strings.Builder, groups []Group) {
	for _, s := range sections(groups) {
		s.markdown(b)
	}
}

// textSections is markdownSections for the terminal.
func textSections(w io.Writer, groups []Group) error {
	for _, s := range sections(groups) {
		if err := s.text(w); err != nil {
			return err
		}
	}
	return nil
}

package main

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/fail"
	"github.com/iobench/iobench/internal/report/export"
)

// formats are the values of report's --format.
var formats = []string{"hgrm", "csv", "openmetrics"}

// runExport prints the records in one --format to stdout. hgrm and csv take one record; a record
// without what its format needs is bad input, and nothing is printed then.
func runExport(cmd *cobra.Command, args []string, f reportFlags) error {
	if err := checkExportFlags(cmd, f); err != nil {
		return err
	}
	recs, files, err := readRecords(args)
	if err != nil {
		return err
	}
	if f.format != "openmetrics" && len(recs) != 1 {
		return cli.BadInput("--format %s takes one record, got %d; name one record file", f.format, len(recs))
	}
	var b bytes.Buffer
	switch f.format {
	case "hgrm":
		err = export.HGRM(&b, recs[0], export.Histogram(f.histogram))
	case "csv":
		var table bool
		if !f.series {
			table, err = export.Table(&b, recs[0])
		}
		if !table && err == nil {
			err = export.CSV(&b, recs[0])
		}
	default:
		runs := make([]export.Run, len(recs))
		for i, r := range recs {
			runs[i] = export.Run{Name: strings.TrimSuffix(filepath.Base(files[i]), ".json"), Record: r}
		}
		err = export.OpenMetrics(&b, runs)
	}
	if err != nil {
		if len(files) == 1 {
			return cli.BadInput("%s: %s", files[0], fail.Text(err))
		}
		return cli.BadInput("%s", fail.Text(err))
	}
	_, err = cmd.OutOrStdout().Write(b.Bytes())
	return err
}

// checkExportFlags refuses what --format cannot do: an unknown format, the files' flags of the
// report, and --histogram with another format than hgrm.
func checkExportFlags(cmd *cobra.Command, f reportFlags) error {
	switch {
	case f.format != "csv" && f.series:
		return cli.BadInput("--series chooses the per-second series of --format csv; add --format csv or drop it")
	case f.format == "":
		return cli.BadInput("--histogram chooses the histogram of --format hgrm; add --format hgrm or drop it")
	case !slices.Contains(formats, f.format):
		return cli.BadInput("--format %q: choose one of %s", f.format, strings.Join(formats, ", "))
	case cmd.Flags().Changed("out") || cmd.Flags().Changed("title") || cmd.Flags().Changed("quiet"):
		return cli.BadInput("--format prints to stdout and writes no report files: drop --out, --title and --quiet")
	case f.format != "hgrm" && cmd.Flags().Changed("histogram"):
		return cli.BadInput("--histogram chooses the histogram of --format hgrm; add --format hgrm or drop it")
	}
	return nil
}

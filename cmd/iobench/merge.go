package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/merge"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/textblock"
)

func init() { subcommands = append(subcommands, newMergeCmd) }

func newMergeCmd() *cobra.Command {
	var jsonPath string
	var latency bool
	cmd := &cobra.Command{
		Use:   "merge RECORD...",
		Short: "Merge the records of a run's load agents (iobench http --agent I/N) into one, exactly",
		Long: `Merge the records of every agent of one distributed run into one record: latency histograms
added exactly (every percentile is the one of all samples), counts summed, the per-second series
aligned by wall-clock second, and each agent's share and cost kept beside the total. It warns when
the agents began more than 50 ms apart, when an agent was saturated, and when one agent's
throughput is far from the others'. report, compare and --fail-if take the merged record as any other.`,
		Example: `  iobench merge agent-0.json agent-1.json --json merged.json
  iobench compare --fail-if 'p99>+10%' base.json merged.json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cli.BadInput("merge takes the agents' record files (or a directory of them), e.g. iobench merge agent-*.json")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := result.CheckWritable(jsonPath); err != nil {
				return cli.BadInput("--json: %v", err)
			}
			recs, files, err := readRecords(args)
			if err != nil {
				return err
			}
			set := merge.NewSet("", 0)
			for i, r := range recs {
				if err := set.Add(r); err != nil {
					return cli.BadInput("%s: %v", files[i], err)
				}
			}
			rec, err := set.Merge(os.Args)
			if err != nil {
				return cli.BadInput("%v; give every agent's record", err)
			}
			return emitMerged(cmd, rec, jsonPath, latency)
		},
	}
	cmd.Flags().StringVar(&jsonPath, "json", "", "write the merged record to this path (- for stdout)")
	cmd.Flags().BoolVar(&latency, "latency", false, "print the latency distribution")
	return cmd
}

// emitMerged prints a merged record and writes it where --json says.
func emitMerged(cmd *cobra.Command, rec *result.Record, jsonPath string, latency bool) error {
	if err := merge.Print(cmd.OutOrStdout(), cmd.ErrOrStderr(), rec, jsonPath, textblock.TextOptions{Latency: latency}); err != nil {
		return cli.Failed(err)
	}
	return nil
}

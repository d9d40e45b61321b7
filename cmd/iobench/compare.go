package main

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/compare"
	"github.com/iobench/iobench/internal/result"
)

func init() { subcommands = append(subcommands, newCompareCmd) }

type compareFlags struct {
	failIf   []string
	alpha    float64
	junit    string
	allowFew bool
}

func newCompareCmd() *cobra.Command {
	var f compareFlags
	cmd := &cobra.Command{
		Use:   "compare BASE NEW",
		Short: "Compare two sets of runs metric by metric, telling real changes from the spread of the repeats",
		Long: `Compare BASE with NEW, each a result record or a results directory. Runs are grouped by workload,
impl, mode and load model; for each group on both sides and each metric (throughput, p50, p99,
p99.9, errors, capacity: a --find-max record's max sustainable rate) the table shows the medians with their min–max, the change, and whether it is real:
a Mann-Whitney U test at --alpha with 3 or more repeats per side (as benchstat). With fewer, the
change is printed but not judged ("too few repeats to tell (1 and 1)"); --allow-few judges it
anyway, by whether the min–max ranges overlap, and says so. Runs whose setups differ (rate,
connections, threads, duration, pipeline depth, protocol, ...) are never judged: the row names the
difference. With one group on each side, those two are compared. Runs that failed their own check
are left out, and named.

--fail-if sets a limit on a change of the medians ('p99>+10%': p99 grew by more than 10%;
'throughput<-5%': throughput fell by more than 5%); any group crossing one exits 1, and a limit
that could not be judged (too few repeats, two setups) exits 3, "not judged", so that a CI gate
never passes silently. --junit writes those verdicts as JUnit XML, one test case per --fail-if,
for CI systems to show.`,
		Example: `  iobench compare results/20261120-quick results/20261121-quick
  iobench compare --fail-if 'p99>+10%' --fail-if 'throughput<-5%' base/ new/
  iobench compare --fail-if 'p99>+10%' --junit results/compare.xml base/ new/`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return cli.BadInput("compare takes BASE and NEW, each a record file or a results directory")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return runCompare(cmd, args, f) },
	}
	fs := cmd.Flags()
	fs.StringArrayVar(&f.failIf, "fail-if", nil, "exit 1 when a change crosses this limit, e.g. 'p99>+10%' (repeatable)")
	fs.Float64Var(&f.alpha, "alpha", compare.DefaultAlpha, "significance level of the U test")
	fs.StringVar(&f.junit, "junit", "", "write the --fail-if verdicts to this file as JUnit XML")
	fs.BoolVar(&f.allowFew, "allow-few", false, "judge changes on fewer than 3 repeats a side, by whether the min–max ranges overlap")
	return cmd
}

func runCompare(cmd *cobra.Command, args []string, f compareFlags) error {
	ths, err := parseThresholds(f.failIf, f.alpha)
	if err != nil {
		return err
	}
	if f.junit != "" && len(ths) == 0 {
		return cli.BadInput("--junit writes the --fail-if verdicts; add at least one --fail-if, e.g. --fail-if 'p99>+10%%'")
	}
	if err := result.CheckWritable(f.junit); err != nil {
		return cli.BadInput("--junit: %v", err)
	}
	base, _, err := readRecords(args[:1])
	if err != nil {
		return err
	}
	newer, _, err := readRecords(args[1:])
	if err != nil {
		return err
	}
	return judge(cmd, base, newer, ths, f, args[0], args[1])
}

// parseThresholds reads --fail-if and --alpha.
func parseThresholds(failIf []string, alpha float64) ([]compare.Threshold, error) {
	var ths []compare.Threshold
	for _, s := range failIf {
		th, err := compare.ParseThreshold(s)
		if err != nil {
			return nil, cli.BadInput("--fail-if: %v", err)
		}
		ths = append(ths, th)
	}
	if alpha <= 0 || alpha >= 1 {
		return nil, cli.BadInput("--alpha %g: use a level between 0 and 1, e.g. 0.05", alpha)
	}
	return ths, nil
}

// judge prints the comparison of base and newer, writes the verdicts as JUnit XML to junit when it
// is set, and fails when a change crosses a threshold.
func judge(cmd *cobra.Command, base, newer []*result.Record, ths []compare.Threshold, f compareFlags, baseName, newName string) error {
	t := compare.Compare(base, newer, compare.Options{Alpha: f.alpha, AllowFew: f.allowFew})
	junit := f.junit
	out := cmd.OutOrStdout()
	if err := t.Write(out); err != nil {
		return err
	}
	if len(t.Rows) == 0 {
		return cli.BadInput("no group of runs (workload, impl, mode, load model) is in both %s and %s; nothing to compare", baseName, newName)
	}
	outcomes := compare.Outcomes(t, ths)
	var vs []compare.Violation
	var unjudged []string
	for _, o := range outcomes {
		for _, r := range o.Unjudged {
			unjudged = append(unjudged, fmt.Sprintf("--fail-if %s on %s: %s", o.Threshold, r.Group, r.Unjudged))
		}
		if len(o.Checked) == 0 {
			fmt.Fprintf(cmd.ErrOrStderr(), "iobench: --fail-if %s not checked: these records have no %s\n", o.Threshold, o.Threshold.Metric)
		}
		vs = append(vs, o.Crossed...)
	}
	if junit != "" {
		var b bytes.Buffer
		if err := compare.JUnit(&b, outcomes); err != nil {
			return err
		}
		if err := result.WriteFileAtomic(junit, b.Bytes()); err != nil {
			return cli.BadInput("--junit: %v", err)
		}
	}
	if len(vs) == 0 && len(unjudged) > 0 {
		return cli.NotJudged(fmt.Errorf("not judged: %s; run 3 or more repeats a side of one setup, or pass --allow-few",
			strings.Join(unjudged, "; ")))
	}
	if len(vs) == 0 {
		return nil
	}
	msgs := make([]string, len(vs))
	for i, v := range vs {
		msgs[i] = v.String()
	}
	return cli.Failed(fmt.Errorf("%d limit(s) crossed: %s", len(vs), strings.Join(msgs, "; ")))
}

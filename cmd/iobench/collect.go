package main

import (
	"net"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/collect"
	"github.com/iobench/iobench/internal/compare"
	"github.com/iobench/iobench/internal/result"
)

func init() { subcommands = append(subcommands, newCollectCmd) }

type collectFlags struct {
	cfg      collect.Config
	listen   string
	json     string
	latency  bool
	base     string
	failIf   []string
	alpha    float64
	allowFew bool
}

func newCollectCmd() *cobra.Command {
	var f collectFlags
	cmd := &cobra.Command{
		Use:   "collect --agents N",
		Short: "Take the records of a run's N load agents, merge them and judge thresholds on the whole",
		Long: `Listen for the records of N load agents (iobench http --agent I/N --collector URL), in any order,
merge them exactly once every one is in (as iobench merge), print the merged block and, with
--base and --fail-if, judge the merged record against a base as iobench compare does.

A duplicate, a record of another run and a record that is not an agent's are refused (the agent
is told why and exits 1) and never merged. Agents still missing after --timeout are named and the
exit code is 1; a crossed --fail-if limit also exits 1.`,
		Example: `  iobench collect --agents 8 --listen :7070 --json merged.json
  iobench collect --agents 8 --base base.json --fail-if 'p99>+10%'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runCollect(cmd, &f) },
	}
	fs := cmd.Flags()
	fs.IntVar(&f.cfg.Agents, "agents", 0, "how many agents' records to wait for")
	fs.StringVar(&f.listen, "listen", ":7070", "address to take records on")
	fs.StringVar(&f.cfg.Run, "run", "", "take only records of this run id (default: the first record's)")
	cli.DurationVarP(fs, &f.cfg.Timeout, "timeout", "", 15*time.Minute, "give up on missing agents after this long")
	fs.StringVar(&f.json, "json", "", "write the merged record to this path (- for stdout)")
	fs.BoolVar(&f.latency, "latency", false, "print the latency distribution")
	fs.StringVar(&f.base, "base", "", "a record or results directory to judge the merged record against")
	fs.StringArrayVar(&f.failIf, "fail-if", nil, "with --base: exit 1 when a change crosses this limit, e.g. 'p99>+10%' (repeatable)")
	fs.Float64Var(&f.alpha, "alpha", compare.DefaultAlpha, "significance level of the U test")
	fs.BoolVar(&f.allowFew, "allow-few", false, "judge the merged record (one run) against the base anyway, by whether the ranges overlap; without it --fail-if exits 3, not judged")
	return cmd
}

func runCollect(cmd *cobra.Command, f *collectFlags) error {
	if f.cfg.Agents < 1 {
		return cli.BadInput("--agents %d: give the number of agents to wait for, e.g. --agents 8", f.cfg.Agents)
	}
	if len(f.failIf) > 0 && f.base == "" {
		return cli.BadInput("--fail-if judges a change against a base: add --base BASE.json")
	}
	ths, err := parseThresholds(f.failIf, f.alpha)
	if err != nil {
		return err
	}
	base, _, err := baseRecords(f.base)
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", f.listen)
	if err != nil {
		return cli.BadInput("--listen %s: %v; choose a free address", f.listen, err)
	}
	defer l.Close()
	f.cfg.Log = cmd.ErrOrStderr()
	c := collect.New(f.cfg)
	cmd.PrintErrf("collect: waiting for %d agents on %s (up to %s)\n", f.cfg.Agents, l.Addr(), f.cfg.Timeout)
	srv := c.Serve(l)
	rec, err := c.Wait(cmd.Context(), os.Args)
	collect.Stop(srv)
	if err != nil {
		return cli.Failed(err)
	}
	if err := emitMerged(cmd, rec, f.json, f.latency); err != nil || base == nil {
		return err
	}
	return judge(cmd, base, []*result.Record{rec}, ths, compareFlags{alpha: f.alpha, allowFew: f.allowFew}, f.base, "the merged record")
}

// baseRecords reads --base, when given.
func baseRecords(path string) ([]*result.Record, []string, error) {
	if path == "" {
		return nil, nil, nil
	}
	return readRecords([]string{path})
}

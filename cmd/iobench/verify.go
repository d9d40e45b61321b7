package main

import (
	"fmt"
	"github.com/iobench/iobench/internal/env"
	"os"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/supervise"
	"github.com/iobench/iobench/internal/workload/publish"
)

func init() { subcommands = append(subcommands, newVerifyCmd) }

func newVerifyCmd() *cobra.Command {
	var b brokerFlags
	var count int
	cmd := &cobra.Command{
		Use:   "verify IMPL",
		Short: "Install an impl, check its prerequisites and run its checks without measuring",
		Long: `Load IMPL's manifest (a name from 'iobench impls' or a folder path), install its dependencies
into the state directory, check its prerequisites, then run the checks of each workload it
declares, without timing anything:
  publish   every variant publishes -n messages (default 200): the broker must count them all,
            the impl must report what it sent, and the queue's durability and the messages'
            delivery mode, read back from the broker, must be the variant's
  hello, cachequeue, fanout
            the impl is started with IOBENCH_LISTEN and each route is requested: status 200 and
            the body DESIGN §5.3 asks for; an unknown route must answer 404
A broken manifest, a failed install or a missing prerequisite exits 2; a failed check exits 1.`,
		Example: `  iobench verify pika-publisher
  iobench verify impls/python/aio-pika-publisher -n 1000`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			out, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
			log, err := b.logger(stderr)
			if err != nil {
				return err
			}
			if count < 0 {
				return cli.BadInput("-n %d: use a positive count", count)
			}
			inst, err := installImpl(ctx, b.root(), args[0], b.stateDir, log)
			if err != nil {
				return err
			}
			m := inst.Manifest
			fmt.Fprintf(out, "%s (%s, %s): manifest ok, installed in %s, prerequisites ok\n", m.Name, m.Language, m.Mode, inst.Dir)
			failures := 0
			for _, w := range m.WorkloadNames() {
				switch w {
				case "publish":
					br, err := b.openBroker(ctx, log)
					if err != nil {
						return err
					}
					checks := publish.VerifyImpl(ctx, publish.ImplConfig{
						Installation: inst, URL: br.url, Count: count, Command: os.Args, Log: log,
					})
					br.close(ctx, log)
					for _, c := range checks {
						status := "ok  "
						if !c.OK {
							status, failures = "FAIL", failures+1
						}
						fmt.Fprintf(out, "  %s publish %s: %s\n", status, c.Variant, c.Detail)
					}
				case "hello", "cachequeue", "fanout":
					addr, err := supervise.FreeAddr()
					if err != nil {
						return cli.Failed(err)
					}
					p, err := inst.Start(ctx, impl.StartOptions{Env: map[string]string{env.Listen: addr}})
					if err != nil {
						failures++
						fmt.Fprintf(out, "  FAIL %s: %s\n", w, cli.OneLine(err.Error()))
						continue
					}
					problems := impl.CheckRoutes(ctx, addr, m.Workloads[w].Routes)
					p.Stop()
					for _, pr := range problems {
						fmt.Fprintf(out, "  FAIL %s: %s\n", w, pr)
					}
					failures += len(problems)
					if len(problems) == 0 {
						fmt.Fprintf(out, "  ok   %s: %d routes answer as DESIGN §5.3 says\n", w, len(m.Workloads[w].Routes))
					}
				default:
					fmt.Fprintf(out, "  skip %s: no checks for this workload in verify yet; run the workload itself\n", w)
				}
			}
			if failures > 0 {
				return cli.Failed(fmt.Errorf("%s: %d check(s) failed", m.Name, failures))
			}
			return nil
		},
	}
	b.add(cmd)
	cmd.Flags().IntVarP(&count, "number", "n", 0, "messages per publish variant (default 200)")
	return cmd
}

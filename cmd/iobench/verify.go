package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/sut"
	"github.com/iobench/iobench/internal/workload/publish"
)

func init() { subcommands = append(subcommands, newVerifyCmd) }

func newVerifyCmd() *cobra.Command {
	var b brokerFlags
	var count int
	cmd := &cobra.Command{
		Use:   "verify IMPL",
		Short: "Install an impl, check its prerequisites and run its checks without measuring",
		Long: `Load IMPL's manifest (a name from 'iobench impls', Go built-ins included, or a folder path),
install its dependencies into the state directory, check its prerequisites, then run the checks
of each workload it declares, for each variant, without timing anything:
  publish   every variant publishes -n messages (default 200): the broker must count them all,
            the impl must report what it sent, and the queue's durability and the messages'
            delivery mode, read back from the broker, must be the variant's
  hello, cachequeue, fanout
            the impl is started with IOBENCH_LISTEN and each route is requested: status 200 and
            the body DESIGN §5.3 asks for; an unknown route must answer 404; GET / is also read
            off the wire twice on one connection (Content-Length and keep-alive)
A problem that is a seed flaw the variant expects (impl.yaml: expect) is shown as "seed flaw
reproduced", not as a failure; an expected flaw that does not show is a failure.
A broken manifest, a failed install or a missing prerequisite exits 2; a failed check exits 1.`,
		Example: `  iobench verify go-hello
  iobench verify python-asyncio-hello
  iobench verify impls/python/aio-pika-publisher -n 1000`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runVerify(cmd, &b, args[0], count) },
	}
	b.add(cmd)
	cmd.Flags().IntVarP(&count, "number", "n", 0, "messages per publish variant (default 200)")
	return cmd
}

func runVerify(cmd *cobra.Command, b *brokerFlags, name string, count int) error {
	ctx := cmd.Context()
	out := cmd.OutOrStdout()
	log, err := b.logger(cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	if count < 0 {
		return cli.BadInput("-n %d: use a positive count", count)
	}
	inst, err := installImpl(ctx, b.root(), name, b.stateDir, log)
	if err != nil {
		return err
	}
	m := inst.Manifest
	fmt.Fprintf(out, "%s (%s; variants %s): manifest ok, installed in %s, prerequisites ok\n", m.Name, m.Language, m.VariantsText(), inst.Dir)
	failures := 0
	for _, w := range m.WorkloadNames() {
		switch w {
		case "publish":
			n, err := verifyPublish(ctx, out, b, inst, count, log)
			if err != nil {
				return err
			}
			failures += n
		case "hello", "cachequeue", "fanout":
			for _, v := range m.Variants {
				failures += verifyHTTP(ctx, out, inst, w, v)
			}
		default:
			fmt.Fprintf(out, "  skip %s: no checks for this workload in verify yet; run the workload itself\n", w)
		}
	}
	if failures > 0 {
		return cli.Failed(fmt.Errorf("%s: %d check(s) failed", m.Name, failures))
	}
	return nil
}

// verifyPublish runs every publish variant on the broker and returns the number of failures.
func verifyPublish(ctx context.Context, out io.Writer, b *brokerFlags, inst *impl.Installation, count int, log *slog.Logger) (int, error) {
	br, err := b.openBroker(ctx, log)
	if err != nil {
		return 0, err
	}
	defer br.close(ctx, log)
	failures := 0
	for _, c := range publish.VerifyImpl(ctx, publish.ImplConfig{Installation: inst, URL: br.url, Count: count, Command: os.Args, Log: log}) {
		status := "ok  "
		if !c.OK {
			status, failures = "FAIL", failures+1
		}
		fmt.Fprintf(out, "  %s publish %s: %s\n", status, c.Variant, c.Detail)
	}
	return failures, nil
}

// verifyHTTP starts variant v on a free port, checks workload w's routes and prints each
// problem, seed flaw reproduced or failure; it returns the number of failures.
func verifyHTTP(ctx context.Context, out io.Writer, inst *impl.Installation, w string, v impl.Variant) int {
	label := w + " " + v.Name
	addr, err := sut.FreeAddr()
	if err != nil {
		fmt.Fprintf(out, "  FAIL %s: %s\n", label, cli.OneLine(err.Error()))
		return 1
	}
	p, err := inst.Start(ctx, impl.StartOptions{Variant: v.Name, Env: map[string]string{env.Listen: addr}})
	if err != nil {
		fmt.Fprintf(out, "  FAIL %s: %s\n", label, cli.OneLine(err.Error()))
		return 1
	}
	routes := inst.Manifest.Workloads[w].Routes
	verdict := impl.Judge(v, impl.CheckRoutes(ctx, addr, routes))
	p.Stop()
	for _, r := range verdict.Reproduced {
		fmt.Fprintf(out, "  flaw %s: seed flaw reproduced: %s\n", label, r)
	}
	for _, f := range verdict.Failures {
		fmt.Fprintf(out, "  FAIL %s: %s\n", label, f)
	}
	for _, id := range verdict.Unchecked {
		fmt.Fprintf(out, "  note %s: expected seed flaw %s shows only under load (iobench run)\n", label, id)
	}
	if len(verdict.Failures) == 0 && len(verdict.Reproduced) == 0 {
		fmt.Fprintf(out, "  ok   %s: %d route(s) answer as DESIGN §5.3 says\n", label, len(routes))
	}
	return len(verdict.Failures)
}

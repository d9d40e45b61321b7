package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/service"
	"github.com/iobench/iobench/internal/workload"
	"github.com/iobench/iobench/internal/workload/runone"
)

func init() { subcommands = append(subcommands, newVerifyCmd) }

func newVerifyCmd() *cobra.Command {
	var b runone.Broker
	var count int
	cmd := &cobra.Command{
		Use:   "verify IMPL[:VARIANT]",
		Short: "Install an impl, check its prerequisites and run its checks without measuring",
		Long: `Load IMPL's manifest (a name from 'iobench impls', Go built-ins included, or a folder path),
install its dependencies into the state directory, check its prerequisites, then run the checks
of each workload it declares, for each variant (or only VARIANT), without timing anything:
  publish   every variant publishes -n messages (default 200): the broker must count them all,
            the impl must report what it sent, and the queue's durability and the messages'
            delivery mode, read back from the broker, must be the variant's
  hello, cachequeue, fanout
            the impl is started with IOBENCH_LISTEN and each route is requested: status 200 and
            the body docs/IMPLS.md asks for ("The HTTP routes"; GET /: exactly "Hello world!",
            Content-Type text/plain; charset=utf-8, Content-Length 12); an unknown route must
            answer 404; GET / is also read off the wire twice on one connection (Content-Length
            and keep-alive) and asked on 100 connections held open at once (a per-client limit)
  fanout    also: against an upstream iobench starts (IOBENCH_UPSTREAM_URL), each route answers
            the upstream's JSON with Server-Timing: app;dur=MS and makes exactly one call
A problem that is a seed flaw the variant expects (impl.yaml: expect) is shown as "seed flaw
reproduced", not as a failure; an expected flaw that does not show is a failure.
A broken manifest, a failed install or a missing prerequisite exits 2; a failed check exits 1.`,
		Example: `  iobench verify go-hello
  iobench verify python-asyncio-hello
  iobench verify node-fanout:http-agent
  iobench verify impls/python/aio-pika-publisher -n 1000`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runVerify(cmd, &b, args[0], count) },
	}
	b.Add(cmd.Flags())
	cmd.Flags().IntVarP(&count, "number", "n", 0, "messages per publish variant (default 200)")
	return cmd
}

func runVerify(cmd *cobra.Command, b *runone.Broker, ref string, count int) error {
	ctx := cmd.Context()
	out := cmd.OutOrStdout()
	log, err := b.Logger(cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	if count < 0 {
		return cli.BadInput("-n %d: use a positive count", count)
	}
	name, variant := impl.ParseRef(ref)
	inst, err := runone.Install(ctx, b.Root(), name, b.StateDir, log)
	if err != nil {
		return err
	}
	if err := onlyVariant(inst, variant); err != nil {
		return err
	}
	m := inst.Manifest
	fmt.Fprintf(out, "%s (%s; variants %s): manifest ok, installed in %s, prerequisites ok\n", m.Name, m.Language, m.VariantsText(), inst.Dir)
	failures := 0
	v := &workload.VerifyEnv{Out: out, Count: count, Log: log, Command: os.Args}
	for _, name := range m.WorkloadNames() {
		w, ok := workload.Lookup(name)
		if !ok || w.Verify == nil {
			fmt.Fprintf(out, "  skip %s: no checks for this workload in verify yet; run the workload itself\n", name)
			continue
		}
		v.BrokerURL = brokerURL(b, w.Roles["broker"], log)
		n, err := w.Verify(ctx, v, inst)
		if err != nil {
			return err
		}
		failures += n
	}
	if failures > 0 {
		return cli.Failed(fmt.Errorf("%s: %d check(s) failed", m.Name, failures))
	}
	return nil
}

// brokerURL is VerifyEnv.BrokerURL for a workload whose broker is of role: the one the flags of b
// find (runone.Broker.Open).
func brokerURL(b *runone.Broker, role service.Role, log *slog.Logger) func(context.Context) (string, func(), error) {
	return func(ctx context.Context) (string, func(), error) {
		inst, stop, err := b.Open(ctx, role, log)
		if err != nil {
			return "", nil, err
		}
		return inst.URL, stop, nil
	}
}

// onlyVariant narrows inst to the variant a reference names, so that verify checks it alone;
// "" keeps them all.
func onlyVariant(inst *impl.Installation, variant string) error {
	if variant == "" {
		return nil
	}
	v, ok := inst.Manifest.Variant(variant)
	if !ok {
		return cli.BadInput("%v", inst.Manifest.UnknownVariant(variant))
	}
	m := *inst.Manifest
	m.Variants = []impl.Variant{v}
	inst.Manifest = &m
	return nil
}

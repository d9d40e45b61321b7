package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/service"
)

func init() { subcommands = append(subcommands, newServicesCmd) }

func newServicesCmd() *cobra.Command {
	var stateDir string
	cmd := &cobra.Command{
		Use:   "services",
		Short: "Start, inspect and stop the backing services (RabbitMQ, PostgreSQL, Redis, Memcached, NATS)",
		Long: `Start, inspect and stop the backing services that benchmarks and tests share.

'services up' starts private instances on free ports of 127.0.0.1, from the binaries installed on
this machine (scripts/install-services.sh installs them), and leaves them running after the
command exits; runs and tests then find them through the state file. 'services env' prints their
URLs as shell exports:

  iobench services up
  eval "$(iobench services env)"
  iobench services down`,
	}
	cmd.PersistentFlags().StringVar(&stateDir, "state-dir", "", "directory for service state, data and logs (default $IOBENCH_STATE_DIR, /var/lib/iobench as root, else ~/.local/state/iobench)")
	opts := func() service.Options { return service.Options{StateDir: stateDir} }
	cmd.AddCommand(newServicesUpCmd(opts), newServicesStatusCmd(opts), newServicesDownCmd(opts),
		newServicesEnvCmd(opts), newServicesNATSCmd())
	return cmd
}

// serviceNames checks names given on the command line; none means def.
func serviceNames(args, def []string) ([]string, error) {
	if len(args) == 0 {
		return def, nil
	}
	var out []string
	for _, a := range args {
		if !slices.Contains(service.Names(), a) {
			return nil, cli.BadInput("unknown service %q; choose from %s", a, strings.Join(service.Names(), ", "))
		}
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out, nil
}

// serviceLine is the one-line summary of an instance.
func serviceLine(w io.Writer, inst *service.Instance, state string) {
	v := inst.Version
	if v == "" {
		v = "-"
	}
	fmt.Fprintf(w, "%-10s %-9s %-60s %-8s %s\n", inst.Name, inst.Kind, inst.Redacted(), v, state)
}

func newServicesUpCmd(opts func() service.Options) *cobra.Command {
	var port int
	cmd := &cobra.Command{
		Use:   "up [NAMES...]",
		Short: "Start services that outlive this command (default: rabbitmq postgres redis memcached)",
		Long: `Start each named service (default: rabbitmq, postgres, redis, memcached; nats only when named)
unless one recorded earlier still answers, and record it in the state file for later runs, tests,
'services env' and 'services down'. Services start in parallel; progress goes to stderr, one line
per service to stdout.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			names, err := serviceNames(args, service.LocalNames())
			if err != nil {
				return err
			}
			o := opts()
			if port != 0 {
				if len(names) != 1 {
					return cli.BadInput("--port needs exactly one service name")
				}
				o.Port = port
			}
			exe, err := os.Executable()
			if err != nil {
				return fmt.Errorf("finding the iobench binary (for nats): %w", err)
			}
			o.NATSCommand = []string{exe, "services", "nats-server"}
			return servicesUp(cmd.Context(), names, o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().IntVar(&port, "port", 0, "serve on this port instead of a free one (one service only)")
	return cmd
}

func servicesUp(ctx context.Context, names []string, o service.Options, stdout, stderr io.Writer) error {
	type result struct {
		inst    *service.Instance
		started bool
		err     error
	}
	results := make([]result, len(names))
	var mu sync.Mutex // serializes progress lines
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() {
			mu.Lock()
			fmt.Fprintf(stderr, "iobench: starting %s ...\n", name)
			mu.Unlock()
			begin := time.Now()
			inst, started, err := service.Up(ctx, name, o)
			results[i] = result{inst, started, err}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil && len(names) == 1:
				// returned as the command's error
			case err != nil:
				fmt.Fprintf(stderr, "iobench: %s\n", cli.OneLine(err.Error()))
			case started:
				fmt.Fprintf(stderr, "iobench: %s up in %v\n", name, time.Since(begin).Round(10*time.Millisecond))
			default:
				fmt.Fprintf(stderr, "iobench: %s was already running\n", name)
			}
		})
	}
	wg.Wait()
	var failed []string
	var firstErr error
	for i, r := range results {
		if r.err != nil {
			failed = append(failed, names[i])
			if firstErr == nil {
				firstErr = r.err
			}
			continue
		}
		state := "up"
		if !r.started {
			state = "up (already running)"
		}
		serviceLine(stdout, r.inst, state)
	}
	switch {
	case len(failed) == 1 && len(names) == 1:
		return firstErr
	case len(failed) > 0:
		return fmt.Errorf("%d of %d services did not start (%s); see above", len(failed), len(names), strings.Join(failed, ", "))
	}
	return nil
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
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

func newServicesStatusCmd(opts func() service.Options) *cobra.Command {
	return &cobra.Command{
		Use:   "status [NAMES...]",
		Short: "Show which services runs would use, and whether they answer",
		RunE: func(cmd *cobra.Command, args []string) error {
			names, err := serviceNames(args, service.Names())
			if err != nil {
				return err
			}
			probes := service.Running(cmd.Context(), names, opts())
			w := cmd.OutOrStdout()
			bad := 0
			for _, name := range names {
				i := slices.IndexFunc(probes, func(p service.Probe) bool { return p.Name == name })
				if i < 0 {
					how := "a private one is started per run"
					if name == "nats" {
						how = "embedded in each run"
					}
					fmt.Fprintf(w, "%-10s %-9s %-60s %-8s %s\n", name, "-", "-", "-", "not running ("+how+")")
					continue
				}
				p := probes[i]
				state := "up (" + p.Source + ")"
				if p.Err != nil {
					bad++
					state = "NOT ANSWERING (" + p.Source + ")"
				}
				serviceLine(w, p.Instance, state)
				if p.Err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "iobench: %s\n", cli.OneLine(p.Err.Error()))
				}
			}
			if bad > 0 {
				return cli.Failed(fmt.Errorf("%d service(s) not answering; 'iobench services down' then 'up' replaces recorded ones", bad))
			}
			return nil
		},
	}
}

func newServicesDownCmd(opts func() service.Options) *cobra.Command {
	return &cobra.Command{
		Use:   "down [NAMES...]",
		Short: "Stop services started by 'services up' (default: all)",
		RunE: func(cmd *cobra.Command, args []string) error {
			names, err := serviceNames(args, service.Names())
			if err != nil {
				return err
			}
			var errs []error
			for _, name := range names {
				begin := time.Now()
				stopped, err := service.Down(cmd.Context(), name, opts())
				switch {
				case err != nil:
					errs = append(errs, err)
				case stopped:
					fmt.Fprintf(cmd.OutOrStdout(), "%-10s down (%v)\n", name, time.Since(begin).Round(10*time.Millisecond))
				case len(args) > 0:
					fmt.Fprintf(cmd.OutOrStdout(), "%-10s was not running\n", name)
				}
			}
			return errors.Join(errs...)
		},
	}
}

func newServicesEnvCmd(opts func() service.Options) *cobra.Command {
	return &cobra.Command{
		Use:   "env",
		Short: `Print shell exports of the running services' URLs, for eval "$(iobench services env)"`,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, p := range service.Running(cmd.Context(), service.Names(), opts()) {
				if p.Err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "iobench: skipping %s: %s\n", p.Name, cli.OneLine(p.Err.Error()))
					continue
				}
				fmt.Fprintf(cmd.OutOrStdout(), "export %s=%s\n", p.Instance.EnvName(), shellQuote(p.Instance.EnvValue()))
			}
			return nil
		},
	}
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// newServicesNATSCmd is the process `services up nats` leaves running: NATS cannot be embedded in
// a command that exits.
func newServicesNATSCmd() *cobra.Command {
	var port int
	var dir string
	cmd := &cobra.Command{
		Use:    "nats-server",
		Short:  "Run an embedded NATS server with JetStream in the foreground (used by 'services up nats')",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if port <= 0 || dir == "" {
				return cli.BadInput("nats-server needs --port and --store-dir")
			}
			// SIGTERM is how 'services down' stops it; the root context also ends on it.
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, os.Interrupt)
			defer stop()
			return service.ServeNATS(ctx, port, dir)
		},
	}
	cmd.Flags().IntVar(&port, "port", 0, "port on 127.0.0.1")
	cmd.Flags().StringVar(&dir, "store-dir", "", "JetStream store directory")
	return cmd
}

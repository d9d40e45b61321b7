package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/service"
)

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

package contracttest

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync/atomic"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/workload"
	"github.com/iobench/iobench/internal/workload/runone"
)

// newCommand is `iobench toy`, the toy workload's own command: one run of an impl, a thin
// adapter over run (flags, then workload.Single, then runone's outcome and exit policy).
func newCommand() *cobra.Command {
	var f runone.Flags
	var pings int64
	cmd := &cobra.Command{
		Use: name, Short: "Ping an impl of the toy workload", Args: cobra.NoArgs,
		Example: "  iobench toy --impl go-toy -n 50",
		RunE: func(cmd *cobra.Command, _ []string) error {
			check := func() error {
				if pings < 1 {
					return cli.BadInput("-n %d: send at least one ping", pings)
				}
				return nil
			}
			measure := func(ctx context.Context, t workload.Target, onSecond func(engine.Snapshot)) (*result.Record, error) {
				r := scenario.Run{ID: "toy", Workload: name, Impl: f.Impl, Params: map[string]any{"pings": pings}}
				e, done := workload.Single(t, r, os.Args, onSecond)
				defer done()
				return run(ctx, e, r)
			}
			return f.Run(cmd, name, check, measure, text)
		},
	}
	f.Add(cmd.Flags(), "go-toy")
	cmd.Flags().Int64VarP(&pings, "pings", "n", 100, "pings to send")
	return cmd
}

// newServeCommand is `iobench serve toy`, the toy workload's Go system under test (the go-toy
// impl's start.command): it answers every line "ping" with its reply and "count" with the pings
// it served, on --listen, else $IOBENCH_LISTEN, until interrupted.
func newServeCommand() *cobra.Command {
	var listen, reply string
	cmd := &cobra.Command{
		Use: name, Short: "Serve the toy workload: each ping answered with a word", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ln, err := cli.Listen(cli.FlagOrEnv(cmd.Flags().Changed("listen"), listen, env.Listen))
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "iobench toy: listening on %s\n", ln.Addr())
			context.AfterFunc(cmd.Context(), func() { ln.Close() })
			serve(ln, reply)
			return nil
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:7070", "host:port to listen on; when not given, $IOBENCH_LISTEN is used if set")
	cmd.Flags().StringVar(&reply, "reply", "pong", "the word answered to every ping")
	return cmd
}

// serve answers the connections of ln until it is closed.
func serve(ln net.Listener, reply string) {
	var served atomic.Int64
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer conn.Close()
			sc := bufio.NewScanner(conn)
			for sc.Scan() {
				answer := "unknown command"
				switch sc.Text() {
				case "ping":
					served.Add(1)
					answer = reply
				case "count":
					answer = strconv.FormatInt(served.Load(), 10)
				}
				if _, err := fmt.Fprintln(conn, answer); err != nil {
					return
				}
			}
		}()
	}
}

package fanout

import (
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/workload/web"
)

// serveCommands are the fanout workload's `iobench serve` commands (workload.Workload.Serve):
// its Go impl and the upstream every run starts.
var serveCommands = []func() *cobra.Command{newServeCommand, newServeUpstreamCommand}

// newServeCommand is `iobench serve fanout`, the Go impl (impls/go/fanout).
func newServeCommand() *cobra.Command {
	var listen, upstream string
	var work time.Duration
	cmd := &cobra.Command{
		Use:   Name,
		Short: "Serve the fanout workload's Go impl: /sync, /async and /async-overlap call the upstream and work",
		Long: "Serve the fanout workload's Go impl (impls/go/fanout) until interrupted: GET /sync calls the\n" +
			"upstream, then works; /async starts the call in a goroutine, works, then waits; /async-overlap\n" +
			"runs both in goroutines. Work is time.Sleep. Each answer is the upstream's body with\n" +
			"Server-Timing: app;dur=MS. Flags default to $IOBENCH_LISTEN, $IOBENCH_UPSTREAM_URL and\n" +
			"$IOBENCH_WORK_MS, as 'iobench fanout' sets them.",
		Example: "  iobench serve upstream --listen 127.0.0.1:18081 &\n  iobench serve fanout --listen 127.0.0.1:18080 --upstream http://127.0.0.1:18081/",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fs := cmd.Flags()
			listen = cli.FlagOrEnv(fs.Changed("listen"), listen, env.Listen)
			upstream = cli.FlagOrEnv(fs.Changed("upstream"), upstream, env.UpstreamURL)
			if err := msFromEnv(fs.Changed("work"), env.WorkMS, &work); err != nil {
				return err
			}
			if upstream == "" {
				return cli.BadInput("no upstream: pass --upstream http://host:port/ or set %s", env.UpstreamURL)
			}
			ln, err := cli.Listen(listen)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "iobench fanout: listening on http://%s/ (upstream %s, work %v)\n", ln.Addr(), upstream, work)
			s := &Service{Upstream: upstream, Work: work}
			if err := web.Serve(cmd.Context(), ln, s.Handler()); err != nil {
				return cli.Failed(fmt.Errorf("serve fanout on %s: %w", ln.Addr(), err))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:8080", "host:port to listen on (default $IOBENCH_LISTEN when set)")
	cmd.Flags().StringVar(&upstream, "upstream", "", "the upstream's URL (default $IOBENCH_UPSTREAM_URL)")
	cli.DurationVarP(cmd.Flags(), &work, "work", "", DefaultWork, "local work per request (default $IOBENCH_WORK_MS when set)")
	return cmd
}

// newServeUpstreamCommand is `iobench serve upstream`, the upstream that every fanout run starts.
func newServeUpstreamCommand() *cobra.Command {
	var listen string
	var delay time.Duration
	var threads int
	cmd := &cobra.Command{
		Use:   "upstream",
		Short: "Serve the fanout workload's upstream: {\"foo\":\"bar\"} after a delay, calls counted",
		Long: "Serve the upstream the fanout workload's impls call, until interrupted: every GET answers\n" +
			"{\"foo\":\"bar\"} (application/json) after --delay, and counts as a call; GET /count answers the\n" +
			"calls so far and is not one. Flags default to $IOBENCH_LISTEN and $IOBENCH_UPSTREAM_DELAY_MS.\n\n" +
			"Its Go code runs on --threads OS threads at a time (GOMAXPROCS), one by default: its calls\n" +
			"mostly sleep, and handing each call's wake-up between two threads measured a quarter more CPU\n" +
			"per call (new connection per call, 700 calls/s), CPU the service it serves has to share.",
		Example: "  iobench serve upstream --listen 127.0.0.1:18081 --delay 10ms &\n  curl http://127.0.0.1:18081/ http://127.0.0.1:18081/count",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			listen = cli.FlagOrEnv(cmd.Flags().Changed("listen"), listen, env.Listen)
			if err := msFromEnv(cmd.Flags().Changed("delay"), env.UpstreamDelay, &delay); err != nil {
				return err
			}
			if delay < 0 {
				return cli.BadInput("--delay %v: use a duration of 0 or more, e.g. 10ms", delay)
			}
			if threads > 0 {
				runtime.GOMAXPROCS(threads)
			}
			ln, err := cli.Listen(listen)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "iobench upstream: listening on http://%s/ (delay %v)\n", ln.Addr(), delay)
			up := &Upstream{Delay: delay}
			defer up.Close()
			if err := web.Serve(cmd.Context(), ln, up); err != nil {
				return cli.Failed(fmt.Errorf("serve upstream on %s: %w", ln.Addr(), err))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:8081", "host:port to listen on (default $IOBENCH_LISTEN when set)")
	cli.DurationVarP(cmd.Flags(), &delay, "delay", "", DefaultDelay, "how long each call waits before its answer (default $IOBENCH_UPSTREAM_DELAY_MS when set)")
	cmd.Flags().IntVar(&threads, "threads", 1, "OS threads running Go code at once (GOMAXPROCS); 0: one per core")
	return cmd
}

// msFromEnv sets *d from the environment variable name (milliseconds) when the flag was not given.
func msFromEnv(changed bool, name string, d *time.Duration) error {
	v := os.Getenv(name)
	if changed || v == "" {
		return nil
	}
	ms, err := ParseMillis(v)
	if err != nil {
		return cli.BadInput("%s=%q: %v", name, v, err)
	}
	*d = ms
	return nil
}

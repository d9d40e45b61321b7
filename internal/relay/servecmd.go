package relay

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/env"
)

// ServeName is the relay's `iobench serve` command.
const ServeName = "proxy"

// ServeCommand is `iobench serve proxy`: the relay between a system under test and one service,
// until interrupted. It answers StatsCommand on its standard input, and writes its last counts on
// its standard output as it stops.
func ServeCommand() *cobra.Command {
	var listen, upstream, latency, jitter string
	cmd := &cobra.Command{
		Use:   ServeName,
		Short: "Relay TCP to a service, adding a latency to every answer and counting round trips",
		Long: "Relay every connection accepted on --listen to --upstream. Each chunk the service sends back is\n" +
			"passed on --latency after it came (plus or minus --jitter, uniform), in order; what the client sends\n" +
			"passes at once. A line \"stats\" on standard input is answered on standard output with the counts\n" +
			"as JSON: turns (changes of direction from client to service), added_ns (the time the relay held\n" +
			"the first chunk of each turn, both ways), connections and bytes. A line \"down 2s\" cuts every\n" +
			"connection and refuses new ones for that long, then heals. --listen defaults to $IOBENCH_LISTEN.",
		Example: "  iobench serve proxy --listen 127.0.0.1:15432 --upstream 127.0.0.1:5432 --latency 5ms --jitter 200us",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if upstream == "" {
				return cli.BadInput("--upstream is missing; give the service's host:port, e.g. --upstream 127.0.0.1:5432")
			}
			cfg := Config{Upstream: upstream}
			var err error
			if cfg.Latency, err = ParseDelay("--latency", latency); err != nil {
				return cli.BadInput("%v", err)
			}
			if cfg.Jitter, err = ParseDelay("--jitter", jitter); err != nil {
				return cli.BadInput("%v", err)
			}
			r, err := New(cfg)
			if err != nil {
				return cli.BadInput("%v", err)
			}
			ln, err := cli.Listen(cli.FlagOrEnv(cmd.Flags().Changed("listen"), listen, env.Listen))
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "iobench proxy: pid %d, %s -> %s, latency %v, jitter %v\n", os.Getpid(), ln.Addr(), upstream, cfg.Latency, cfg.Jitter)
			b := NewBreaker(ln)
			go Control(r, b, cmd.InOrStdin(), cmd.OutOrStdout())
			err = r.Serve(cmd.Context(), b)
			_ = WriteStats(cmd.OutOrStdout(), r.Stats())
			if err != nil {
				return cli.Failed(fmt.Errorf("proxy on %s: %w", ln.Addr(), err))
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&listen, "listen", "127.0.0.1:0", "host:port to listen on; when not given, $IOBENCH_LISTEN is used if set")
	fs.StringVar(&upstream, "upstream", "", "the service's host:port")
	fs.StringVar(&latency, "latency", "0s", "added to every chunk the service sends back, e.g. 5ms or 500us")
	fs.StringVar(&jitter, "jitter", "0s", "each chunk's delay is uniform in latency ± jitter (never below 0)")
	return cmd
}

// ParseDelay reads a latency or a jitter: a Go duration with its unit ("5ms", "200us", "0s"), not
// negative; what names it in the error.
func ParseDelay(what, s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return 0, fmt.Errorf("%s %q: use a duration with its unit, e.g. 5ms or 200us", what, s)
	case d < 0:
		return 0, fmt.Errorf("%s %q is negative; use 0s or more", what, s)
	}
	return d, nil
}

package hello

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/env"
)

// serveCommands are the hello workload's `iobench serve` commands (workload.Workload.Serve).
var serveCommands = []func() *cobra.Command{newServeCommand}

// newServeCommand is `iobench serve hello`, the built-in hello server (impls/go/hello).
func newServeCommand() *cobra.Command {
	var listen, server string
	var h2c bool
	var maxRate float64
	cmd := &cobra.Command{
		Use:   Name,
		Short: "Serve the hello workload: GET / answers \"Hello world!\"",
		Long: "Serve the hello workload's built-in Go server until interrupted: raw (raw-socket HTTP/1.1,\n" +
			"keep-alive, pipelining) or net-http (the standard library's net/http, to see what it costs).\n" +
			"GET / answers \"Hello world!\"; other paths 404, other methods 405.\n" +
			"The address comes from --listen, else $IOBENCH_LISTEN, else 127.0.0.1:8080; the server from\n" +
			"--server, else $IOBENCH_VARIANT when it names one (the go-hello impl's variants), else raw.\n\n" +
			"--max-rate R makes it a server of known capacity, the ground truth of iobench http --find-max:\n" +
			"one queue with a fixed service time of 1/R, each answer sent at max(its arrival, the previous\n" +
			"answer's time) + 1/R. Below R its latency stays flat, above R its queue grows without bound.\n" +
			"At exit it prints its answers per second.",
		Example: "  iobench serve hello --listen 127.0.0.1:18080 &\n  iobench serve hello --max-rate 2000 --listen 127.0.0.1:18082 &\n  iobench serve hello --server net-http --listen 127.0.0.1:18081 &\n" +
			"  wrk -t1 -c100 -d5s http://127.0.0.1:18080/",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			listen = cli.FlagOrEnv(cmd.Flags().Changed("listen"), listen, env.Listen)
			if !cmd.Flags().Changed("server") && slices.Contains(Servers, os.Getenv(env.Variant)) {
				server = os.Getenv(env.Variant)
			}
			h2c = h2c || os.Getenv(env.Variant) == VariantHTTP2 // the go-hello impl's http2 variant
			serve := Serve
			switch server {
			case ServerRaw:
			case ServerNetHTTP:
				serve = ServeNetHTTP
			default:
				return cli.BadInput("--server %q: use %s", server, strings.Join(Servers, " or "))
			}
			var limited *MaxRate
			switch {
			case cmd.Flags().Changed("max-rate") && maxRate <= 0:
				return cli.BadInput("--max-rate %g: give a positive rate in requests per second, e.g. --max-rate 2000", maxRate)
			case maxRate > 0 && (server != ServerRaw || h2c):
				return cli.BadInput("--max-rate runs on the raw server over HTTP/1.1; drop --server %s and --http2", server)
			case maxRate > 0:
				limited = NewMaxRate(maxRate)
				server, serve = fmt.Sprintf("raw, at most %g req/s", maxRate), limited.Serve
			}
			if h2c {
				if server == ServerRaw && cmd.Flags().Changed("server") {
					return cli.BadInput("--http2 is served by net-http, not the raw server; drop --server raw")
				}
				server, serve = ServerNetHTTP+", HTTP/1.1 and h2c", ServeHTTP2
			}
			ln, err := cli.Listen(listen)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "iobench hello (%s): pid %d, listening on http://%s/\n", server, os.Getpid(), ln.Addr())
			if err := serve(cmd.Context(), ln); err != nil {
				return cli.Failed(fmt.Errorf("serve hello on %s: %w", ln.Addr(), err))
			}
			if limited != nil {
				printCounts(cmd.OutOrStdout(), limited.Queue.Counts())
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:8080", "host:port to listen on; when not given, $IOBENCH_LISTEN is used if set")
	cmd.Flags().StringVar(&server, "server", ServerRaw, "raw or net-http; when not given, $IOBENCH_VARIANT is used if it names one")
	cmd.Flags().Float64Var(&maxRate, "max-rate", 0, "a server of known capacity: one queue answering at most R req/s, each answer 1/R after the previous one (raw server)")
	cmd.Flags().BoolVar(&h2c, "http2", false, "answer HTTP/2 with prior knowledge (h2c) beside HTTP/1.1 on the same port (net-http)")
	return cmd
}

// printCounts writes the answers of each second, from the first answer, on one line.
func printCounts(w io.Writer, counts []int64) {
	var b strings.Builder
	for _, n := range counts {
		fmt.Fprintf(&b, " %d", n)
	}
	fmt.Fprintf(w, "answers per second, from the first:%s\n", cmp.Or(b.String(), " none"))
}

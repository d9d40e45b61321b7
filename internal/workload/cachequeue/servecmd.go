package cachequeue

import (
	"fmt"
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/env"
)

// serveCommands are the cachequeue workload's `iobench serve` commands (workload.Workload.Serve).
var serveCommands = []func() *cobra.Command{newServeCommand}

// newServeCommand is `iobench serve cachequeue`, the Go impl (impls/go/cachequeue).
func newServeCommand() *cobra.Command {
	var listen, profile string
	var workers int
	cmd := &cobra.Command{
		Use:   Name,
		Short: "Serve the cachequeue workload's Go impl: /cache/* increments, /queue/* pushes, on Redis, Memcached and ZeroMQ",
		Long: "Serve the cachequeue workload's Go impl (impls/go/cachequeue) until interrupted, on the stores\n" +
			"$IOBENCH_REDIS_URL, $IOBENCH_MEMCACHED_ADDR and $IOBENCH_ZMQ_ENDPOINT ('iobench cachequeue' sets\n" +
			"them). --workers N handles at most N requests at once (a pool like PHP-FPM's: the sync\n" +
			"variant, N from $IOBENCH_CONCURRENCY); 0 handles every connection's at once (async).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fs := cmd.Flags()
			listen = cli.FlagOrEnv(fs.Changed("listen"), listen, env.Listen)
			if v := os.Getenv(env.Concurrency); v != "" && !fs.Changed("workers") {
				n, err := strconv.Atoi(v)
				if err != nil || n < 0 {
					return cli.BadInput("%s=%q: give a number of workers, 0 for none", env.Concurrency, v)
				}
				workers = n
			}
			s := &Service{Workers: workers, Addrs: Addrs{
				Redis: os.Getenv(env.RedisURL), Memcached: os.Getenv(env.MemcachedAddr), ZMQ: os.Getenv(env.ZMQEndpoint)}}
			if s.Addrs.Redis == "" || s.Addrs.Memcached == "" || s.Addrs.ZMQ == "" {
				return cli.BadInput("%s, %s and %s must be set; 'iobench cachequeue' sets them", env.RedisURL, env.MemcachedAddr, env.ZMQEndpoint)
			}
			if err := s.Open(cmd.Context()); err != nil {
				return cli.RunError(err)
			}
			defer s.Close()
			if profile != "" {
				stop, err := cli.StartCPUProfile(profile)
				if err != nil {
					return cli.BadInput("--cpuprofile: %v", err)
				}
				defer stop()
			}
			ln, err := cli.Listen(listen)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "iobench cachequeue: listening on http://%s/ (workers %d)\n", ln.Addr(), workers)
			if err := s.Serve(cmd.Context(), ln); err != nil {
				return cli.Failed(fmt.Errorf("serve cachequeue on %s: %w", ln.Addr(), err))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:8080", "host:port to listen on (default $IOBENCH_LISTEN when set)")
	cmd.Flags().IntVar(&workers, "workers", 0, "requests handled at once; 0 for every connection's (default $IOBENCH_CONCURRENCY when set)")
	cmd.Flags().StringVar(&profile, "cpuprofile", "", "write a Go CPU profile of the service to this file until it stops")
	cmd.Flags().MarkHidden("cpuprofile")
	return cmd
}

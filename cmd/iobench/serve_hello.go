package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/env"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/workload/hello"
)

func init() { serveSubcommands = append(serveSubcommands, newServeHelloCmd) }

func newServeHelloCmd() *cobra.Command {
	var listen, server string
	var h2c bool
	cmd := &cobra.Command{
		Use:   hello.Name,
		Short: "Serve the hello workload: GET / answers \"Hello world!\"",
		Long: "Serve the hello workload's built-in Go server until interrupted: raw (raw-socket HTTP/1.1,\n" +
			"keep-alive, pipelining) or net-http (the standard library's net/http, to see what it costs).\n" +
			"GET / answers \"Hello world!\"; other paths 404, other methods 405.\n" +
			"The address comes from --listen, else $IOBENCH_LISTEN, else 127.0.0.1:8080; the server from\n" +
			"--server, else $IOBENCH_VARIANT when it names one (the go-hello impl's variants), else raw.",
		Example: "  iobench serve hello --listen 127.0.0.1:18080 &\n  iobench serve hello --server net-http --listen 127.0.0.1:18081 &\n" +
			"  wrk -t1 -c100 -d5s http://127.0.0.1:18080/",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("listen") {
				if env := os.Getenv(env.Listen); env != "" {
					listen = env
				}
			}
			if !cmd.Flags().Changed("server") && slices.Contains(hello.Servers, os.Getenv(env.Variant)) {
				server = os.Getenv(env.Variant)
			}
			serve := hello.Serve
			switch server {
			case hello.ServerRaw:
			case hello.ServerNetHTTP:
				serve = hello.ServeNetHTTP
			default:
				return cli.BadInput("--server %q: use %s", server, strings.Join(hello.Servers, " or "))
			}
			if h2c {
				if server == hello.ServerRaw && cmd.Flags().Changed("server") {
					return cli.BadInput("--http2 is served by net-http, not the raw server; drop --server raw")
				}
				server, serve = hello.ServerNetHTTP+", HTTP/1.1 and h2c", hello.ServeHTTP2
			}
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				return listenError(listen, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "iobench hello (%s): pid %d, listening on http://%s/\n", server, os.Getpid(), ln.Addr())
			if err := serve(cmd.Context(), ln); err != nil {
				return cli.Failed(fmt.Errorf("serve hello on %s: %w", ln.Addr(), err))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:8080", "host:port to listen on; when not given, $IOBENCH_LISTEN is used if set")
	cmd.Flags().StringVar(&server, "server", hello.ServerRaw, "raw or net-http; when not given, $IOBENCH_VARIANT is used if it names one")
	cmd.Flags().BoolVar(&h2c, "http2", false, "answer HTTP/2 with prior knowledge (h2c) beside HTTP/1.1 on the same port (net-http)")
	return cmd
}

// listenError explains a failed listen in one line, with what to do about it.
func listenError(addr string, err error) error {
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return cli.BadInput("listen on %s: address already in use; stop the process using that port (see: ss -ltnp | grep %s) or pass --listen 127.0.0.1:OTHER_PORT", addr, portOf(addr))
	case errors.Is(err, syscall.EACCES):
		return cli.BadInput("listen on %s: permission denied; use a port above 1023 or run with the right privileges", addr)
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return cli.BadInput("listen on %s: no such local address; use an address of this machine, e.g. --listen 127.0.0.1:8080", addr)
	}
	return cli.BadInput("listen on %s: %v; pass --listen host:port, e.g. 127.0.0.1:8080", addr, err)
}

func portOf(addr string) string {
	if _, port, err := net.SplitHostPort(addr); err == nil {
		return ":" + port
	}
	return addr
}

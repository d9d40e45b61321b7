// Package httpcmd is the `iobench http` command: flags, run and output. Both binaries build it,
// iobench and the lean generator image iobench-http.
package httpcmd

import (
	"errors"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/agent"
	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/httpbench"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/textblock"
)

type httpFlags struct {
	opts     httpbench.Options
	latency  bool
	bodyFile string
	body     string
	jsonPath string
	quiet    bool
	profile  string
	image    string // the generator's executable, for the record
	agent    agent.Flags
	find     findMaxFlags
}

// New returns the http command. use is its usage line: "http URL" as a subcommand, "iobench http
// URL" as a binary of its own. image names the generator's process in the record.
func New(use, image string) *cobra.Command {
	f := httpFlags{image: image}
	cmd := &cobra.Command{
		Use:   use,
		Short: "Load an HTTP server like wrk (closed loop) or wrk2 (-R, open loop) with correct latency",
		Long: `Load an HTTP/1.1 server on raw keep-alive connections, over TLS for an https:// URL.

Closed loop (default): each connection sends its next request when the previous response is in,
as wrk does. Open loop (-R): requests are scheduled at a fixed total rate whatever the server does,
and latency is timed from each request's intended start (no coordinated omission); the uncorrected
latency and the schedule lag are shown beside it. The starts are evenly spaced, as wrk2's, or with
--arrivals poisson random and independent, as many clients' who do not wait for each other are:
they bunch up now and then, and the latency shows what the service's queue makes of that.

https:// runs each connection's TLS handshake (ALPN http/1.1, sessions resumed across the run's
redials) before its first request, and reports the handshakes on a line of their own (count,
resumed, handshake and connect times). In a closed loop, as in wrk, a request's latency starts
at its write, after the connect and the handshake, even with --no-keepalive; in an open loop it
starts at the intended time, so a redial's connect and handshake are in it and in the schedule
lag, not in the uncorrected latency.

HTTP/2: --http2-prior-knowledge speaks h2c on http://, --http2 negotiates h2 through ALPN on
https:// (a server that does not choose h2 stops the run before any load, saying what it chose);
--streams M keeps M requests in flight on each connection, timed as above.

--find-max finds the highest rate the service sustains within every --slo (latency from the
intended start: p50, p99, p99.9 or max below a duration; errors below a percentage). Each step is
an open loop at one rate: its connections open, then a --warmup (default 1s), then a measured
window (--step-duration, default 5s), stopped early once it has failed whatever the rest brings.
A step passes when every SLO holds and at least 99% of the rate was achieved (with --arrivals
poisson, of the rate its schedule offered, each step drawing its own). The
search climbs from --start-rate (default 1000) by x2 to the first failing step, bisects to
--precision (default 0.02), steps down by /2 to --floor (default 10) when the first step fails,
stops at --ceiling (default 100000) and confirms the answer with 3 more passing runs, stepping
down when one fails; at most --max-steps (default 40) steps. A failing step is the service's
unless the generator fell behind (generator-bound: its busiest thread at 85% of a core or more,
its threads waiting to run more than a tenth of the SLO on average, or over 1% of requests sent
more than 1 ms late while their connection was free and the service's own time met the SLO) or
requests waited for a free connection while at least half the pool was busy on average
(connection-starved). A generator-bound step stops the
search; a starved one is run once more with more connections, unless -c was given: then the
search stops and says the -c it needs. Without -c, each step has the step's rate x the tightest
SLO latency x 2 connections (Little's law), at least 10. It prints one line, also with --quiet, and a line per step on stderr
(not with --quiet); Ctrl-C prints the bracket so far. -R, -n, -d and the agent flags do not go
with it.`,
		Example: `  iobench http -t1 -c100 -d30s --latency http://127.0.0.1:8080/
  iobench http -c50 -d20s -R 20000 --latency http://127.0.0.1:8080/
  iobench http -n 100000 -c10 --no-keepalive --json result.json http://127.0.0.1:8080/
  iobench http -c100 -d10s --cacert ca.pem https://127.0.0.1:8443/
  iobench http -c10 --streams 100 -d10s --http2 --cacert ca.pem https://127.0.0.1:8443/
  iobench http --find-max --slo 'p99<20ms' --slo 'errors<0.1%' http://127.0.0.1:8080/`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return cli.BadInput("http takes exactly one URL, e.g. iobench http -c100 -d10s http://127.0.0.1:8080/")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			f.opts.URL = args[0]
			f.opts.RateSet = cmd.Flags().Changed("rate")
			f.opts.PipelineSet = cmd.Flags().Changed("pipeline")
			f.opts.StreamsSet = cmd.Flags().Changed("streams")
			f.opts.SeedSet = cmd.Flags().Changed("seed")
			if err := f.find.prepare(cmd.Flags(), &f); err != nil {
				return err
			}
			if f.find.on {
				if err := readBody(&f); err != nil {
					return err
				}
				return runFindMax(cmd, &f)
			}
			return runHTTP(cmd, &f)
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.IntVarP(&f.opts.Threads, "threads", "t", 0, "OS threads the generator may use (default min(2, connections))")
	fs.IntVarP(&f.opts.Connections, "connections", "c", 10, "connections kept open; with -R a pool, all open from the start (the connection freed last takes the next request)")
	cli.DurationVarP(fs, &f.opts.Duration, "duration", "d", 10*time.Second, "measured duration (10s, 2m; bare numbers are seconds)")
	fs.Int64VarP(&f.opts.Requests, "requests", "n", 0, "total requests instead of a duration (ab's -n)")
	fs.Float64VarP(&f.opts.Rate, "rate", "R", 0, "open loop: total requests per second (wrk2's -R)")
	fs.StringVar(&f.opts.Arrivals, "arrivals", engine.ArrivalsEven, "with -R: even (exactly 1/R apart, as wrk2) or poisson (random, independent arrivals of mean rate R, as pgbench --rate)")
	fs.Uint64Var(&f.opts.Seed, "seed", 0, "with --arrivals poisson: draw the arrivals from this seed, as a record's seed parameter did (default a new one each run)")
	fs.BoolVar(&f.latency, "latency", false, "print the latency distribution")
	fs.StringArrayVarP(&f.opts.Headers, "header", "H", nil, "add a request header 'Name: value' (repeatable)")
	cli.DurationVarP(fs, &f.opts.Timeout, "timeout", "", 2*time.Second, "a response slower than this is a timeout error")
	fs.BoolVar(&f.opts.NoKeepAlive, "no-keepalive", false, "close the connection after each response (as ab without -k)")
	fs.IntVar(&f.opts.Pipeline, "pipeline", 1, "HTTP/1.1 requests each connection keeps written ahead of their answers, up to N (1-1024; event loop, http:// only)")
	fs.BoolVar(&f.opts.HTTP2, "http2", false, "speak HTTP/2 over https://, negotiated through ALPN (h2), as curl's flag")
	fs.BoolVar(&f.opts.H2C, "http2-prior-knowledge", false, "speak HTTP/2 on http:// without negotiation (h2c), as curl's flag")
	fs.IntVar(&f.opts.Streams, "streams", 1, "HTTP/2: concurrent streams per connection (1-1024; h2load's -m); the server's SETTINGS_MAX_CONCURRENT_STREAMS caps it")
	fs.StringVarP(&f.opts.Method, "method", "m", "GET", "request method")
	fs.StringVar(&f.body, "body", "", "request body")
	fs.StringVar(&f.bodyFile, "body-file", "", "read the request body from a file")
	cli.DurationVarP(fs, &f.opts.Warmup, "warmup", "", 0, "load sent before measuring, not counted")
	fs.IntSliceVar(&f.opts.ExpectStatus, "expect-status", nil, "statuses that count as success (default 2xx and 3xx)")
	fs.StringVar(&f.opts.ExpectBody, "expect-body", "", "a regular expression every response body must match")
	fs.BoolVarP(&f.opts.TLS.Insecure, "insecure", "k", false, "https: do not verify the server's certificate")
	fs.StringVar(&f.opts.TLS.CAFile, "cacert", "", "https: trust the CAs of this PEM file instead of the system's")
	fs.StringVar(&f.opts.TLS.ServerName, "sni", "", "https: the server name to send and verify (default the URL's host)")
	// The engine: the event loop by default, the goroutine engine on request.
	fs.StringVar(&f.opts.Engine, "engine", "", "load engine: loop (epoll event loop per thread; the default where it runs) or goroutine (one per connection)")
	fs.StringVar(&f.jsonPath, "json", "", "write the JSON result record to this path (- for stdout)")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress line")
	fs.StringVar(&f.profile, "cpuprofile", "", "write a Go CPU profile of the generator to this file")
	fs.MarkHidden("cpuprofile")
	f.agent.Register(fs)
	f.find.register(fs)
	return cmd
}

func runHTTP(cmd *cobra.Command, f *httpFlags) error {
	if err := readBody(f); err != nil {
		return err
	}
	cfg, err := f.opts.Config()
	if err != nil {
		return cli.BadInput("%v", err)
	}
	if err := result.CheckWritable(f.jsonPath); err != nil {
		return cli.BadInput("--json: %v", err)
	}
	if err := f.agent.Configure(&cfg, time.Now()); err != nil {
		return cli.BadInput("%v", err)
	}
	ctx := cmd.Context()
	if err := httpbench.Probe(ctx, cfg.Target, cfg.TLS, cfg.Timeout); err != nil {
		return cli.BadInput("%v", err)
	}
	if f.agent.Local > 0 {
		return runLocal(cmd, f, cfg)
	}
	if f.profile != "" {
		stop, err := cli.StartCPUProfile(f.profile)
		if err != nil {
			return cli.BadInput("--cpuprofile: %v", err)
		}
		defer stop()
	}
	prog := cli.NewProgress(cmd.ErrOrStderr(), f.quiet || f.jsonPath == "-")
	cfg.OnSecond = prog.Second
	rec, err := httpbench.Measure(ctx, cfg, httpbench.Meta{Command: os.Args, Generator: f.image})
	prog.Done()
	if err != nil {
		return cli.RunError(err)
	}
	f.agent.Stamp(rec)
	out := cmd.OutOrStdout()
	if f.jsonPath == "-" {
		out = cmd.ErrOrStderr() // stdout carries the record
	}
	textblock.HTTP(out, rec, textblock.TextOptions{Latency: f.latency})
	if f.jsonPath != "" {
		if err := result.Save(f.jsonPath, rec, cmd.OutOrStdout()); err != nil {
			return cli.Failed(err)
		}
	}
	if err := f.agent.Send(ctx, rec); err != nil {
		return cli.Failed(err)
	}
	if rec.Interrupted {
		return cli.Interrupted(errors.New("interrupted; the partial result is above" + savedNote(f.jsonPath)))
	}
	if err := httpbench.NoSuccess(rec); err != nil {
		return cli.Failed(err)
	}
	return nil
}

func savedNote(path string) string {
	if path == "" || path == "-" {
		return ""
	}
	return " and in " + path
}

func readBody(f *httpFlags) error {
	if f.body != "" && f.bodyFile != "" {
		return cli.BadInput("--body and --body-file do not mix; give one")
	}
	f.opts.Body = []byte(f.body)
	if f.bodyFile != "" {
		b, err := os.ReadFile(f.bodyFile)
		if err != nil {
			return cli.BadInput("--body-file: %v", err)
		}
		f.opts.Body = b
	}
	return nil
}

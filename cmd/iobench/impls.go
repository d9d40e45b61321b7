package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/impl"
)

func init() { subcommands = append(subcommands, newImplsCmd) }

func newImplsCmd() *cobra.Command {
	var implsDir string
	cmd := &cobra.Command{
		Use:   "impls",
		Short: "List the systems under test in impls/ and what each implements",
		Long: `List every impls/<language>/<name>/impl.yaml: name, language, mode, the workloads it implements
(with the variants of publish) and its description. A broken manifest is listed with every
problem and a hint for each, and makes the command exit 2.

The manifest (impl.yaml):
  name, language (go|node|php|python), mode (sync|async), description
  workloads:   bus: {queues: [...]}; hello|cachequeue|fanout: {routes: [...]};
               publish: {variants: [{name, description, seed, queue, queue_durable, persistent,
                                     confirm, concurrency, count, env}]}
  requires:    commands, python, node, php_extensions: [{name, import, hint}]
  install:     venv: requirements.txt (a virtualenv under the state dir, pip install -r)
               npm: package-lock.json (npm ci in a folder under the state dir)
  start:       command: [python, app.py] ("python" is the impl's virtualenv), env: {...}
  ready:       log: '^ready$' (a line the impl prints) or tcp: listen (IOBENCH_LISTEN accepts)
  stop:        signal: TERM, timeout: 5s (then SIGKILL to the impl's process group)

Every impl gets IOBENCH_LISTEN, IOBENCH_AMQP_URL, IOBENCH_NATS_URL, IOBENCH_DATABASE_URL,
IOBENCH_REDIS_URL, IOBENCH_MEMCACHED_ADDR, IOBENCH_ZMQ_ENDPOINT, IOBENCH_UPSTREAM_URL,
IOBENCH_CONCURRENCY and IOBENCH_PREFETCH where the run has them (DESIGN §5.2).

A publish impl also gets IOBENCH_QUEUE, IOBENCH_COUNT, IOBENCH_VARIANT, IOBENCH_PERSISTENT and
IOBENCH_CONFIRM ("1" or "0"). It connects, prints "ready", waits for one line on its standard
input, publishes IOBENCH_COUNT messages through the default exchange to IOBENCH_QUEUE (iobench
declares the queue), prints "result sent=N seconds=S" and exits 0. iobench counts what the
broker accepted; the impl's own figure is kept beside it for contrast.`,
		Example: `  iobench impls
  iobench verify pika-publisher`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			root := implsDir
			if root == "" {
				root = impl.DefaultRoot()
			}
			entries, err := impl.List(root)
			if err != nil {
				return cli.BadInput("%v", err)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tLANGUAGE\tMODE\tWORKLOADS\tDESCRIPTION")
			var broken []string
			for _, e := range entries {
				if e.Err != nil {
					broken = append(broken, e.Err.Error())
					continue
				}
				m := e.Manifest
				var ws []string
				for _, w := range m.WorkloadNames() {
					if vs := m.Workloads[w].Variants; len(vs) > 0 {
						names := make([]string, len(vs))
						for i, v := range vs {
							names[i] = v.Name
						}
						w += " (" + strings.Join(names, ", ") + ")"
					}
					ws = append(ws, w)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", m.Name, m.Language, m.Mode, strings.Join(ws, "; "), m.Description)
			}
			tw.Flush()
			if len(entries) == 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "(no impls under %s)\n", root)
			}
			for _, b := range broken[min(1, len(broken)):] {
				fmt.Fprintf(cmd.ErrOrStderr(), "iobench: %s\n", cli.OneLine(b))
			}
			if len(broken) > 0 {
				return cli.BadInput("%s", broken[0])
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&implsDir, "impls-dir", "", "the impls folder (default $IOBENCH_IMPLS_DIR or ./impls)")
	return cmd
}

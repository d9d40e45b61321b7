package publish

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/impls/gopublisher"
)

// newServeCommand is `iobench serve publisher` (workload.Workload.Serve), the Go publisher impl
// (impls/go/publisher) that package gopublisher is.
func newServeCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "publisher",
		Short: "Run the Go publisher impl (impls/go/publisher): publish once on the start signal, as seed 2's Go runs did",
		Long: `Run the Go publisher of the publish workload as an impl speaking the one-shot client contract
(docs/IMPLS.md): it reads IOBENCH_AMQP_URL, IOBENCH_QUEUE, IOBENCH_COUNT, IOBENCH_CONCURRENCY
(goroutines, a connection each), IOBENCH_QUEUE_DURABLE, IOBENCH_PERSISTENT, IOBENCH_CONFIRM,
PUBLISH_SHAPE (single, pool or ultra: seed 2's code; fast: allocation-free) and PUBLISH_BODY
(fast's body: seed or seed-min), prints "ready" (pool and ultra before they connect, the others
once connected), waits for one line on standard input, publishes, and prints
"result sent=N seconds=S". 'iobench run scenarios/seed2-publish.yaml' starts it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := gopublisher.ServeConfigFromEnv(os.Getenv)
			if err != nil {
				return cli.RunError(err)
			}
			return cli.RunError(gopublisher.Serve(cmd.Context(), c, cmd.InOrStdin(), cmd.OutOrStdout()))
		},
	}
}

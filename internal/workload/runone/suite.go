package runone

import (
	"errors"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/iobench/iobench/internal/cli"
)

// RunSuite adds `iobench run`'s flags to fs and returns what runs the scenario file name embedded
// in the binary (scenarios/NAME) with them, as `iobench run` runs a suite. The executable's run
// command, which workloads do not import, sets it in an init function; it is nil in a binary
// without that command (a workload's test). Shipped uses it.
var RunSuite func(fs *pflag.FlagSet) (run func(cmd *cobra.Command, name string) error)

// Shipped makes c run the scenario file name embedded in the binary, as `iobench run` does and
// with its flags (`iobench publish seed2` is scenarios/seed2-publish.yaml). In a binary without
// the run command (a workload's test) c fails saying so.
func Shipped(c *cobra.Command, name string) *cobra.Command {
	c.Args = cobra.NoArgs
	if RunSuite == nil {
		c.RunE = func(*cobra.Command, []string) error {
			return cli.Failed(errors.New("this binary has no 'iobench run'; run " + name + " with iobench"))
		}
		return c
	}
	run := RunSuite(c.Flags())
	c.RunE = func(cmd *cobra.Command, _ []string) error { return run(cmd, name) }
	return c
}

package workload

import "github.com/spf13/cobra"

// Commands builds the registered workloads' own top-level commands (Workload.Command), in the
// order of the workloads' names; the executable adds them to its root.
func Commands() []*cobra.Command {
	var out []*cobra.Command
	for _, n := range Names() {
		if c := registry[n].Command; c != nil {
			out = append(out, c())
		}
	}
	return out
}

// ServeCommands builds the `iobench serve` subcommands of the registered workloads' Go systems
// under test (Workload.Serve), in the order of the workloads' names, then those of no workload
// (RegisterServe).
func ServeCommands() []*cobra.Command {
	var out []*cobra.Command
	for _, n := range Names() {
		for _, c := range registry[n].Serve {
			out = append(out, c())
		}
	}
	for _, c := range helpers {
		out = append(out, c())
	}
	return out
}

// helpers are the `iobench serve` commands that belong to no workload (RegisterServe).
var helpers []func() *cobra.Command

// RegisterServe adds an `iobench serve` command that belongs to no workload but that runs start
// beside their systems under test (`serve proxy`, the relay of injected latency), so that it is
// in every tree ServeCommands builds: iobench's, and a test binary's (workloadtest). Call it from
// an init function.
func RegisterServe(c func() *cobra.Command) { helpers = append(helpers, c) }

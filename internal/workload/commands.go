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
// under test (Workload.Serve), in the order of the workloads' names.
func ServeCommands() []*cobra.Command {
	var out []*cobra.Command
	for _, n := range Names() {
		for _, c := range registry[n].Serve {
			out = append(out, c())
		}
	}
	return out
}

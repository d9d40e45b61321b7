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
		Long: `List every impls/<language>/<folder>/impl.yaml, Go built-ins included: name (always
<language>-<folder>), language, the variants with their modes (a "!" marks a variant that
reproduces a seed flaw on purpose), the workloads it implements and its description. A broken
manifest is listed with every problem and a hint for each, and makes the command exit 2.

docs/IMPLS.md is the contract for impl authors: every manifest field, the IOBENCH_* environment,
readiness, the stdin start signal, the bus report stream, variants and expected findings, and
how to add an impl in a new language. In short:
  name, language (go|node|php|python), description
  variants:    [{name, mode: sync|async, description, seed, env, expect: [finding...]}]
  workloads:   ` + sectionsHelp("\n               ") + `
  requires:    commands, python, node, php_extensions, php_libraries: [{name, import, file, hint}]
  install:     venv: requirements.txt | npm: package-lock.json
  start:       command: [iobench|python|node|php|..., args...], env: {...}
  ready:       log: '^ready$' | tcp: listen
  stop:        signal: TERM, timeout: 5s

A scenario names an impl as NAME, or NAME:VARIANT for one of its variants (iobench run).`,
		Example: `  iobench impls
  iobench verify go-hello
  iobench verify python-pika-publisher`,
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
			fmt.Fprintln(tw, "NAME\tLANGUAGE\tVARIANTS (MODE)\tWORKLOADS\tDESCRIPTION")
			var broken []string
			for _, e := range entries {
				if e.Err != nil {
					broken = append(broken, e.Err.Error())
					continue
				}
				m := e.Manifest
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", m.Name, m.Language, m.VariantsText(), strings.Join(m.WorkloadNames(), ", "), m.Description)
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
	cmd.Flags().StringVar(&implsDir, "impls-dir", "", impl.RootFlagHelp)
	return cmd
}

// sectionsHelp lists the manifest section of every registered workload, as each registered it,
// one line per section (workloads with the same section share a line: "fanout|hello: {...}"),
// joined by sep.
func sectionsHelp(sep string) string {
	var helps []string
	names := map[string][]string{}
	for _, w := range impl.Workloads() {
		h := impl.SectionHelp(w)
		if names[h] == nil {
			helps = append(helps, h)
		}
		names[h] = append(names[h], w)
	}
	lines := make([]string, len(helps))
	for i, h := range helps {
		lines[i] = strings.Join(names[h], "|") + ": " + h
	}
	return strings.Join(lines, ";"+sep)
}

package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/agent"
	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/compare"
	"github.com/iobench/iobench/internal/httpcmd"
	"github.com/iobench/iobench/internal/k8sjob"
)

func init() { subcommands = append(subcommands, newK8sCmd) }

func newK8sCmd() *cobra.Command {
	k := &cobra.Command{Use: "k8s", Short: "Write what runs a distributed load on Kubernetes (see docs/SCALE-OUT.md)"}
	k.AddCommand(newK8sJobCmd())
	return k
}

type k8sFlags struct {
	spec   k8sjob.Spec
	out    string
	base   string
	failIf []string
}

func newK8sJobCmd() *cobra.Command {
	f := k8sFlags{spec: k8sjob.Spec{Image: "iobench-http:dev", CollectorImage: "iobench:dev"}}
	cmd := &cobra.Command{
		Use:   "job [http flags] URL --agents N",
		Short: "Write an Indexed Job of N load agents, their collector and the images' Dockerfile",
		Long: `Write the manifests of a load run split over N agents placed by Kubernetes (run.yaml) and the
Dockerfile of the two static images (with the Dockerfile.dockerignore BuildKit reads beside it),
into --out. The agents are an Indexed Job (parallelism and
completions N), each pod running iobench-http as agent $(JOB_COMPLETION_INDEX)/N of the http
flags given here, with one core requested and limited and a preference for a node of its own;
they begin measuring together at --start-at (default: 5 minutes from now: apply before then)
and post their records to the collector's Service, whose pod runs iobench collect: it merges
them, prints the merged block to its log and, with --base and --fail-if, fails the Job when a
threshold is crossed. See docs/SCALE-OUT.md.`,
		Example: `  iobench k8s job -c 800 -d 60s -R 200000 http://my-service.default.svc/ --agents 8 --out k8s/
  iobench k8s job -c 80 -d 30s http://my-service/ --agents 4 --base base.json --fail-if 'p99>+10%'`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return cli.BadInput("k8s job takes exactly one URL (as the agents reach it in the cluster), e.g. iobench k8s job -c 100 http://svc/ --agents 4")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return runK8sJob(cmd, &f, args[0]) },
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.IntVar(&f.spec.Agents, "agents", 0, "how many agents (pods) share the load")
	fs.StringVar(&f.out, "out", "iobench-k8s", "directory to write run.yaml and the Dockerfile into")
	fs.StringVar(&f.spec.Image, "image", f.spec.Image, "the agents' image (the Dockerfile's generator target)")
	fs.StringVar(&f.spec.CollectorImage, "collector-image", f.spec.CollectorImage, "the collector's image (the Dockerfile's collector target)")
	fs.StringVar(&f.spec.Namespace, "namespace", "", "namespace of the objects (default: kubectl's)")
	fs.StringVar(&f.base, "base", "", "a base record the collector judges the merged one against (put in a ConfigMap)")
	fs.StringArrayVar(&f.failIf, "fail-if", nil, "with --base: fail the collector's Job when a change crosses this limit (repeatable)")
	cli.DurationVarP(fs, &f.spec.Timeout, "collect-timeout", "", 15*time.Minute, "how long the collector waits for every agent's record")
	fs.AddFlagSet(httpcmd.New("http", "").Flags())
	return cmd
}

func runK8sJob(cmd *cobra.Command, f *k8sFlags, url string) error {
	fs := cmd.Flags()
	for _, name := range []string{"agent", "agents-local", "collector", "json"} {
		if fs.Changed(name) {
			return cli.BadInput("--%s is chosen by k8s job for each agent; leave it out", name)
		}
	}
	if f.spec.Agents < 1 {
		return cli.BadInput("--agents %d: give the number of agent pods, e.g. --agents 8", f.spec.Agents)
	}
	if len(f.failIf) > 0 && f.base == "" {
		return cli.BadInput("--fail-if judges a change against a base: add --base BASE.json")
	}
	if _, err := parseThresholds(f.failIf, compare.DefaultAlpha); err != nil {
		return err
	}
	if err := checkSplit(cmd, f.spec.Agents); err != nil {
		return err
	}
	now := time.Now()
	start, _ := fs.GetString("start-at")
	f.spec.StartAt = now.Add(5 * time.Minute).Truncate(time.Second)
	if start != "" {
		t, err := agent.ParseStartAt(start, now)
		if err != nil {
			return cli.BadInput("%v", err)
		}
		f.spec.StartAt = t
	}
	f.spec.Run, _ = fs.GetString("run")
	if f.spec.Run == "" {
		f.spec.Run = fmt.Sprintf("k8s-%d", f.spec.StartAt.Unix())
	}
	f.spec.URL, f.spec.HTTPArgs, f.spec.FailIf = url, httpcmd.AgentArgs(fs), f.failIf
	if f.base != "" {
		b, err := os.ReadFile(f.base)
		if err != nil {
			return cli.BadInput("--base: %v", err)
		}
		f.spec.Base = b
	}
	paths, err := k8sjob.Build(f.spec).Write(f.out)
	if err != nil {
		return cli.Failed(err)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "wrote %s\nagents begin measuring at %s (run %s): kubectl apply -f %s before then\n",
		strings.Join(paths, ", "), f.spec.StartAt.UTC().Format(time.RFC3339), f.spec.Run, paths[0])
	return nil
}

// checkSplit fails when the http flags cannot be split over n agents (fewer connections or
// requests than agents).
func checkSplit(cmd *cobra.Command, n int) error {
	fs := cmd.Flags()
	c, _ := fs.GetInt("connections")
	reqs, _ := fs.GetInt64("requests")
	rate, _ := fs.GetFloat64("rate")
	if _, err := (agent.Spec{Index: 0, Count: n}).Split(agent.Whole{Connections: c, Requests: reqs, Rate: rate}); err != nil {
		return cli.BadInput("%v", err)
	}
	return nil
}

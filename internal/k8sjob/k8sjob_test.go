package k8sjob

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/iobench/iobench/internal/k8sjob/k8sapi"
)

func spec(n int) Spec {
	return Spec{Agents: n, URL: "http://svc/", HTTPArgs: []string{"--connections=100", "--rate=40000", "--duration=10s"},
		StartAt: time.Date(2026, 11, 23, 15, 0, 0, 0, time.UTC), Run: "r1", Image: "gen:1", CollectorImage: "iob:1",
		Timeout: time.Minute, Base: []byte(`{"schema_version":1}`), FailIf: []string{"p99>+10%"}}
}

// TestManifestsDecodeStrictly writes the manifests of 8 agents and decodes them strictly into
// k8s.io/api types, then checks what the agents, the collector and its Service must carry.
func TestManifestsDecodeStrictly(t *testing.T) {
	y, err := Build(spec(8)).YAML()
	if err != nil {
		t.Fatal(err)
	}
	m, err := k8sapi.Decode(y)
	if err != nil {
		t.Fatalf("strict decode: %v\n%s", err, y)
	}
	checkManifests(t, m, 8)
	if m.Base == nil || m.Base.Data["base.json"] != `{"schema_version":1}` {
		t.Errorf("base ConfigMap %+v", m.Base)
	}
	args := m.Jobs[CollectorName].Spec.Template.Spec.Containers[0].Args
	if !slices.Contains(args, "/base/base.json") || !slices.Contains(args, "p99>+10%") {
		t.Errorf("collector args %q: want the base and the threshold", args)
	}
}

func TestDecodeRefusesUnknownFields(t *testing.T) {
	y, _ := Build(spec(2)).YAML()
	bad := strings.Replace(string(y), "completionMode: Indexed", "completionMode: Indexed\n  completionsMode: Indexed", 1)
	if _, err := k8sapi.Decode([]byte(bad)); err == nil || !strings.Contains(err.Error(), "completionsMode") {
		t.Fatalf("a misspelt field: %v, want it refused", err)
	}
}

// checkManifests checks the decoded manifests of a run of n agents.
func checkManifests(t *testing.T, m k8sapi.Manifests, n int32) {
	t.Helper()
	agents, collector := m.Jobs[AgentsName], m.Jobs[CollectorName]
	if agents == nil || collector == nil || m.Service == nil || len(m.Jobs) != 2 {
		t.Fatalf("manifests %+v: want the agents' Job, the collector's Job and its Service", m)
	}
	j := agents.Spec
	if j.CompletionMode == nil || *j.CompletionMode != batchv1.IndexedCompletion || *j.Parallelism != n || *j.Completions != n {
		t.Errorf("agents Job: completion mode %v, parallelism %d, completions %d; want Indexed, %d, %d", j.CompletionMode, *j.Parallelism, *j.Completions, n, n)
	}
	pod := j.Template.Spec
	c := pod.Containers[0]
	agentArg := c.Args[slices.Index(c.Args, "--agent")+1]
	if want := "$(JOB_COMPLETION_INDEX)/" + itoa(n); agentArg != want {
		t.Errorf("agent arg %q, want %q", agentArg, want)
	}
	if len(c.Env) != 1 || c.Env[0].Name != "JOB_COMPLETION_INDEX" || c.Env[0].ValueFrom.FieldRef == nil {
		t.Errorf("agent env %+v: want JOB_COMPLETION_INDEX from the pod's completion index", c.Env)
	}
	for _, res := range []corev1.ResourceList{c.Resources.Requests, c.Resources.Limits} {
		if cpu := res[corev1.ResourceCPU]; cpu.MilliValue() != 1000 {
			t.Errorf("agent cpu %v, want one core requested and limited", cpu.String())
		}
	}
	aa := pod.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution
	if len(aa) != 1 || aa[0].PodAffinityTerm.TopologyKey != "kubernetes.io/hostname" ||
		!matches(aa[0].PodAffinityTerm.LabelSelector.MatchLabels, j.Template.Labels) {
		t.Errorf("anti-affinity %+v: want agents kept apart by hostname", aa)
	}
	if !slices.Contains(c.Args, "http://iobench-collector:7070/records") {
		t.Errorf("agent args %q: want the collector's Service", c.Args)
	}
	col := collector.Spec.Template
	if !matches(m.Service.Spec.Selector, col.Labels) || m.Service.Spec.Ports[0].Port != col.Spec.Containers[0].Ports[0].ContainerPort {
		t.Errorf("Service %+v does not select the collector's pod %+v", m.Service.Spec, col)
	}
	args := col.Spec.Containers[0].Args
	if args[0] != "collect" || args[slices.Index(args, "--agents")+1] != itoa(n) {
		t.Errorf("collector args %q: want collect --agents %d", args, n)
	}
}

func matches(sel, labels map[string]string) bool {
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return len(sel) > 0
}

func itoa(n int32) string { return strconv.Itoa(int(n)) }

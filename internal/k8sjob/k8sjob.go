package k8sjob

import (
	"fmt"
	"strconv"
	"time"
)

// Names and the port of the objects.
const (
	AgentsName    = "iobench-agents"
	CollectorName = "iobench-collector"
	BaseName      = "iobench-base"
	CollectorPort = 7070
	indexEnv      = "JOB_COMPLETION_INDEX"
)

// Spec is one distributed run.
type Spec struct {
	Agents         int
	URL            string   // the target, as the agents reach it inside the cluster
	HTTPArgs       []string // the http flags, as an agent takes them (httpcmd.AgentArgs)
	StartAt        time.Time
	Run            string
	Image          string // the lean generator image
	CollectorImage string // iobench itself
	Namespace      string
	FailIf         []string // thresholds the collector judges against the base record
	Base           []byte   // the base record (JSON), put in a ConfigMap; nil: none
	Timeout        time.Duration
}

// Manifests are the objects of one run, in the order they are applied.
type Manifests struct {
	Base      *Object // a v1 ConfigMap; nil without a base record
	Service   *Object // a v1 Service
	Collector *Object // a batch/v1 Job
	Agents    *Object // a batch/v1 Job, Indexed
}

// Build returns the manifests of s.
func Build(s Spec) Manifests {
	m := Manifests{Service: service(s), Collector: collector(s), Agents: agents(s)}
	if s.Base != nil {
		m.Base = &Object{APIVersion: "v1", Kind: "ConfigMap", Metadata: meta(s, BaseName, "base"),
			Data: map[string]string{"base.json": string(s.Base)}}
	}
	return m
}

func meta(s Spec, name, role string) Meta {
	return Meta{Name: name, Namespace: s.Namespace, Labels: labels(s, role)}
}

func labels(s Spec, role string) map[string]string {
	return map[string]string{"app.kubernetes.io/name": "iobench", "app.kubernetes.io/component": role, "iobench/run": s.Run}
}

func service(s Spec) *Object {
	return &Object{APIVersion: "v1", Kind: "Service", Metadata: meta(s, CollectorName, "collector"),
		Spec: ServiceSpec{
			Selector: labels(s, "collector"),
			Ports:    []ServicePort{{Name: "records", Port: CollectorPort, TargetPort: CollectorPort, Protocol: "TCP"}},
		}}
}

// collectorArgs are iobench collect's: wait for every agent, print the merged block to the log,
// judge the thresholds against the mounted base: a distributed run is one merged record, so the
// collector judges it on that one run (--allow-few), as the user asked with --fail-if.
func collectorArgs(s Spec) []string {
	args := []string{"collect", "--agents", strconv.Itoa(s.Agents), "--listen", fmt.Sprintf(":%d", CollectorPort),
		"--run", s.Run, "--timeout", s.Timeout.String(), "--latency"}
	if s.Base != nil {
		args = append(args, "--base", "/base/base.json", "--allow-few")
		for _, th := range s.FailIf {
			args = append(args, "--fail-if", th)
		}
	}
	return args
}

func collector(s Spec) *Object {
	pod := PodSpec{
		RestartPolicy: "Never",
		Containers: []Container{{
			Name: "collect", Image: s.CollectorImage, Args: collectorArgs(s),
			Ports:     []ContainerPort{{Name: "records", ContainerPort: CollectorPort}},
			Resources: oneCore(),
		}},
	}
	if s.Base != nil {
		pod.Volumes = []Volume{{Name: "base", ConfigMap: &ConfigMapMount{Name: BaseName}}}
		pod.Containers[0].VolumeMounts = []VolumeMount{{Name: "base", MountPath: "/base", ReadOnly: true}}
	}
	return job(s, CollectorName, "collector", 1, "", pod)
}

func agents(s Spec) *Object {
	args := append([]string{"http"}, s.HTTPArgs...)
	args = append(args, "--agent", fmt.Sprintf("$(%s)/%d", indexEnv, s.Agents),
		"--start-at", s.StartAt.UTC().Format(time.RFC3339Nano), "--run", s.Run,
		"--collector", fmt.Sprintf("http://%s:%d/records", CollectorName, CollectorPort), "--quiet", s.URL)
	pod := PodSpec{
		RestartPolicy: "Never",
		Affinity:      spread(s),
		Containers: []Container{{
			Name: "agent", Image: s.Image, Args: args,
			Env: []EnvVar{{Name: indexEnv, ValueFrom: EnvSource{FieldRef: FieldRef{
				FieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}}},
			Resources: oneCore(),
		}},
	}
	return job(s, AgentsName, "agent", int32(s.Agents), "Indexed", pod)
}

func job(s Spec, name, role string, n int32, mode string, pod PodSpec) *Object {
	backoff := int32(0) // an agent started again would start late: the run is then one to repeat
	return &Object{APIVersion: "batch/v1", Kind: "Job", Metadata: meta(s, name, role),
		Spec: JobSpec{
			CompletionMode: mode, Parallelism: &n, Completions: &n, BackoffLimit: &backoff,
			Template: PodTemplate{Metadata: Meta{Labels: labels(s, role)}, Spec: pod},
		}}
}

// oneCore requests and limits one core (and memory enough for the generator's buffers).
func oneCore() Resources {
	return Resources{Requests: map[string]string{"cpu": "1", "memory": "256Mi"}, Limits: map[string]string{"cpu": "1", "memory": "256Mi"}}
}

// spread prefers a node without another agent of the run, so that agents spread over nodes (a
// preference, so that a cluster of fewer nodes than agents still runs them all).
func spread(s Spec) *Affinity {
	return &Affinity{PodAntiAffinity: PodAntiAffinity{Preferred: []WeightedTerm{{
		Weight: 100,
		Term:   PodTerm{TopologyKey: "kubernetes.io/hostname", LabelSelector: Selector{MatchLabels: labels(s, "agent")}},
	}}}}
}

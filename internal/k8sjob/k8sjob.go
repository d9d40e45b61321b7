package k8sjob

import (
	"fmt"
	"strconv"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
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
	Base      *corev1.ConfigMap // nil without a base record
	Service   *corev1.Service
	Collector *batchv1.Job
	Agents    *batchv1.Job
}

// Build returns the manifests of s.
func Build(s Spec) Manifests {
	m := Manifests{Service: service(s), Collector: collector(s), Agents: agents(s)}
	if s.Base != nil {
		m.Base = &corev1.ConfigMap{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: meta(s, BaseName, "base"),
			Data:       map[string]string{"base.json": string(s.Base)},
		}
	}
	return m
}

func meta(s Spec, name, role string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: s.Namespace, Labels: labels(s, role)}
}

func labels(s Spec, role string) map[string]string {
	return map[string]string{"app.kubernetes.io/name": "iobench", "app.kubernetes.io/component": role, "iobench/run": s.Run}
}

func service(s Spec) *corev1.Service {
	return &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: meta(s, CollectorName, "collector"),
		Spec: corev1.ServiceSpec{
			Selector: labels(s, "collector"),
			Ports:    []corev1.ServicePort{{Name: "records", Port: CollectorPort, TargetPort: intstr.FromInt32(CollectorPort), Protocol: corev1.ProtocolTCP}},
		},
	}
}

// collectorArgs are iobench collect's: wait for every agent, print the merged block to the log,
// judge the thresholds against the mounted base.
func collectorArgs(s Spec) []string {
	args := []string{"collect", "--agents", strconv.Itoa(s.Agents), "--listen", fmt.Sprintf(":%d", CollectorPort),
		"--run", s.Run, "--timeout", s.Timeout.String(), "--latency"}
	if s.Base != nil {
		args = append(args, "--base", "/base/base.json")
		for _, th := range s.FailIf {
			args = append(args, "--fail-if", th)
		}
	}
	return args
}

func collector(s Spec) *batchv1.Job {
	pod := corev1.PodSpec{
		RestartPolicy: corev1.RestartPolicyNever,
		Containers: []corev1.Container{{
			Name: "collect", Image: s.CollectorImage, Args: collectorArgs(s),
			Ports:     []corev1.ContainerPort{{Name: "records", ContainerPort: CollectorPort}},
			Resources: oneCore(),
		}},
	}
	if s.Base != nil {
		pod.Volumes = []corev1.Volume{{Name: "base", VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: BaseName}}}}}
		pod.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "base", MountPath: "/base", ReadOnly: true}}
	}
	return job(s, CollectorName, "collector", 1, nil, pod)
}

func agents(s Spec) *batchv1.Job {
	n := int32(s.Agents)
	args := append([]string{"http"}, s.HTTPArgs...)
	args = append(args, "--agent", fmt.Sprintf("$(%s)/%d", indexEnv, s.Agents),
		"--start-at", s.StartAt.UTC().Format(time.RFC3339Nano), "--run", s.Run,
		"--collector", fmt.Sprintf("http://%s:%d/records", CollectorName, CollectorPort), "--quiet", s.URL)
	pod := corev1.PodSpec{
		RestartPolicy: corev1.RestartPolicyNever,
		Affinity:      spread(s),
		Containers: []corev1.Container{{
			Name: "agent", Image: s.Image, Args: args,
			Env: []corev1.EnvVar{{Name: indexEnv, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{
				FieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}}},
			Resources: oneCore(),
		}},
	}
	indexed := batchv1.IndexedCompletion
	j := job(s, AgentsName, "agent", n, &indexed, pod)
	return j
}

func job(s Spec, name, role string, n int32, mode *batchv1.CompletionMode, pod corev1.PodSpec) *batchv1.Job {
	backoff := int32(0) // an agent started again would start late: the run is then one to repeat
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: meta(s, name, role),
		Spec: batchv1.JobSpec{
			CompletionMode: mode, Parallelism: &n, Completions: &n, BackoffLimit: &backoff,
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels(s, role)}, Spec: pod},
		},
	}
}

// oneCore requests and limits one core (and memory enough for the generator's buffers).
func oneCore() corev1.ResourceRequirements {
	r := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("256Mi")}
	return corev1.ResourceRequirements{Requests: r, Limits: r}
}

// spread prefers a node without another agent of the run, so that agents spread over nodes (a
// preference, so that a cluster of fewer nodes than agents still runs them all).
func spread(s Spec) *corev1.Affinity {
	return &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
		PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
			Weight: 100,
			PodAffinityTerm: corev1.PodAffinityTerm{
				TopologyKey:   "kubernetes.io/hostname",
				LabelSelector: &metav1.LabelSelector{MatchLabels: labels(s, "agent")},
			},
		}},
	}}
}

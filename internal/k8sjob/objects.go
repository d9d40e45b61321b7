package k8sjob

// The objects below are the few fields of the Kubernetes API's batch/v1 Job, core/v1 Service and
// core/v1 ConfigMap that a run uses, with the API's JSON names, so that iobench does not link
// k8s.io/api (about 8 MB of binary and 4 MiB of start-up memory in every iobench process). The
// tests decode what Write writes strictly into the k8s.io/api types (internal/k8sjob/k8sapi).

// Object is any API object: its type, its metadata, and the rest.
type Object struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   Meta              `json:"metadata"`
	Data       map[string]string `json:"data,omitempty"` // ConfigMap
	Spec       any               `json:"spec,omitempty"` // ServiceSpec or JobSpec
}

// Meta is an object's or a pod template's metadata.
type Meta struct {
	Name      string            `json:"name,omitempty"`
	Namespace string            `json:"namespace,omitempty"`
	Labels    map[string]string `json:"labels,omitempty"`
}

// ServiceSpec selects the collector's pod and names its port.
type ServiceSpec struct {
	Selector map[string]string `json:"selector"`
	Ports    []ServicePort     `json:"ports"`
}

// ServicePort is one port of a Service.
type ServicePort struct {
	Name       string `json:"name"`
	Protocol   string `json:"protocol"`
	Port       int32  `json:"port"`
	TargetPort int32  `json:"targetPort"`
}

// JobSpec is a batch/v1 Job's spec.
type JobSpec struct {
	Parallelism    *int32      `json:"parallelism"`
	Completions    *int32      `json:"completions"`
	BackoffLimit   *int32      `json:"backoffLimit"`
	CompletionMode string      `json:"completionMode,omitempty"`
	Template       PodTemplate `json:"template"`
}

// PodTemplate is a Job's pod template.
type PodTemplate struct {
	Metadata Meta    `json:"metadata"`
	Spec     PodSpec `json:"spec"`
}

// PodSpec is a pod's spec.
type PodSpec struct {
	Volumes       []Volume    `json:"volumes,omitempty"`
	Containers    []Container `json:"containers"`
	RestartPolicy string      `json:"restartPolicy"`
	Affinity      *Affinity   `json:"affinity,omitempty"`
}

// Volume is a pod's volume: here always a ConfigMap's.
type Volume struct {
	Name      string          `json:"name"`
	ConfigMap *ConfigMapMount `json:"configMap"`
}

// ConfigMapMount names the ConfigMap a volume shows.
type ConfigMapMount struct {
	Name string `json:"name"`
}

// Container is a pod's container.
type Container struct {
	Name         string          `json:"name"`
	Image        string          `json:"image"`
	Args         []string        `json:"args"`
	Ports        []ContainerPort `json:"ports,omitempty"`
	Env          []EnvVar        `json:"env,omitempty"`
	Resources    Resources       `json:"resources"`
	VolumeMounts []VolumeMount   `json:"volumeMounts,omitempty"`
}

// ContainerPort is a port a container listens on.
type ContainerPort struct {
	Name          string `json:"name"`
	ContainerPort int32  `json:"containerPort"`
}

// EnvVar is a container's variable taken from a field of its pod.
type EnvVar struct {
	Name      string    `json:"name"`
	ValueFrom EnvSource `json:"valueFrom"`
}

// EnvSource says which field of the pod a variable takes.
type EnvSource struct {
	FieldRef FieldRef `json:"fieldRef"`
}

// FieldRef is a path into the pod's object.
type FieldRef struct {
	FieldPath string `json:"fieldPath"`
}

// Resources are a container's requests and limits ("cpu": "1", "memory": "256Mi").
type Resources struct {
	Limits   map[string]string `json:"limits"`
	Requests map[string]string `json:"requests"`
}

// VolumeMount mounts a volume into a container.
type VolumeMount struct {
	Name      string `json:"name"`
	ReadOnly  bool   `json:"readOnly,omitempty"`
	MountPath string `json:"mountPath"`
}

// Affinity keeps a run's agents on nodes apart where it can.
type Affinity struct {
	PodAntiAffinity PodAntiAffinity `json:"podAntiAffinity"`
}

// PodAntiAffinity holds the preferred terms.
type PodAntiAffinity struct {
	Preferred []WeightedTerm `json:"preferredDuringSchedulingIgnoredDuringExecution"`
}

// WeightedTerm is one preference and its weight.
type WeightedTerm struct {
	Weight int32   `json:"weight"`
	Term   PodTerm `json:"podAffinityTerm"`
}

// PodTerm selects the pods to keep apart from and the topology to keep them apart in.
type PodTerm struct {
	LabelSelector Selector `json:"labelSelector"`
	TopologyKey   string   `json:"topologyKey"`
}

// Selector matches labels.
type Selector struct {
	MatchLabels map[string]string `json:"matchLabels"`
}

// Package k8sjob writes the Kubernetes manifests of a distributed run (iobench k8s job): the
// agents as an Indexed Job (completionMode Indexed, parallelism and completions N), each pod
// running the lean generator image as agent $(JOB_COMPLETION_INDEX)/N with one core requested
// and limited and a preference for a node of its own (pod anti-affinity on the hostname); the
// collector as a Job of one pod running iobench collect behind a Service the agents post to; a
// ConfigMap with the base record when thresholds are judged; and the Dockerfile of both static
// images. The objects are structs of its own with the API's field names (objects.go); the tests
// decode what is written strictly into the k8s.io/api types (package k8sapi, which only tests
// import), so that what is written is what the API accepts without iobench linking k8s.io/api.
package k8sjob

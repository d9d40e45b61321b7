package k8sjob

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"gopkg.in/yaml.v3"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// Decode reads a YAML stream as Write writes it, strictly: every document must decode into its
// k8s.io/api type (batch/v1 Job, core/v1 Service, core/v1 ConfigMap) with no field left over.
func Decode(stream []byte) (Manifests, error) {
	var m Manifests
	dec := yaml.NewDecoder(bytes.NewReader(stream))
	for {
		var doc any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return m, nil
		}
		if err != nil {
			return m, err
		}
		js, err := json.Marshal(doc)
		if err != nil {
			return m, err
		}
		if err := decodeOne(js, &m); err != nil {
			return m, err
		}
	}
}

func decodeOne(js []byte, m *Manifests) error {
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(js, &head); err != nil {
		return err
	}
	var into any
	switch {
	case head.APIVersion == "v1" && head.Kind == "Service":
		m.Service = &corev1.Service{}
		into = m.Service
	case head.APIVersion == "v1" && head.Kind == "ConfigMap":
		m.Base = &corev1.ConfigMap{}
		into = m.Base
	case head.APIVersion == "batch/v1" && head.Kind == "Job" && head.Metadata.Name == AgentsName:
		m.Agents = &batchv1.Job{}
		into = m.Agents
	case head.APIVersion == "batch/v1" && head.Kind == "Job" && head.Metadata.Name == CollectorName:
		m.Collector = &batchv1.Job{}
		into = m.Collector
	default:
		return fmt.Errorf("unexpected object %s %s %q", head.APIVersion, head.Kind, head.Metadata.Name)
	}
	d := json.NewDecoder(bytes.NewReader(js))
	d.DisallowUnknownFields()
	if err := d.Decode(into); err != nil {
		return fmt.Errorf("%s %q: %w", head.Kind, head.Metadata.Name, err)
	}
	return nil
}

// Package k8sapi reads the manifests internal/k8sjob writes back into the Kubernetes API's own
// types (k8s.io/api), strictly, so that tests show that what iobench writes is what the API
// accepts. Only tests import it: iobench itself does not link k8s.io/api.
package k8sapi

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

// Manifests are the objects of a run as the API reads them.
type Manifests struct {
	Base    *corev1.ConfigMap
	Service *corev1.Service
	Jobs    map[string]*batchv1.Job // by name
}

// Decode reads a YAML stream as k8sjob writes it, strictly: every document must decode into its
// k8s.io/api type (batch/v1 Job, core/v1 Service, core/v1 ConfigMap) with no field left over.
func Decode(stream []byte) (Manifests, error) {
	m := Manifests{Jobs: map[string]*batchv1.Job{}}
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
	case head.APIVersion == "batch/v1" && head.Kind == "Job" && m.Jobs[head.Metadata.Name] == nil:
		j := &batchv1.Job{}
		m.Jobs[head.Metadata.Name] = j
		into = j
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

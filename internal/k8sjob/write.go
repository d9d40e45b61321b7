package k8sjob

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"gopkg.in/yaml.v3"
)

// Files written by Write.
const (
	ManifestFile     = "run.yaml"
	DockerfileFile   = "Dockerfile"
	DockerignoreFile = DockerfileFile + ".dockerignore"
)

// Dockerignore keeps the build context to what the build reads: the module's Go sources and the
// files they embed (under cmd/, internal/, scenarios/ and impls/, which iobench embeds), not
// bin/, results/ or .state/ (where the impls' installed dependencies live). BuildKit (docker build's builder since Docker 23) reads it
// because it sits beside the Dockerfile under the Dockerfile's name; a .dockerignore at the
// context's root would be the user's file, not iobench's to write.
const Dockerignore = `# Read by docker build (BuildKit) for the Dockerfile beside it: only what the Go build needs.
*
!go.mod
!go.sum
!cmd
!internal
!scenarios
!impls
`

// dockerfile is the Dockerfile that builds the two static images from a checkout: the lean
// generator (the agents') and iobench (the collector's), each alone on an empty base. Its %[1]s
// is the Dockerfile's path, as the build commands of its comment must name it.
const dockerfile = `# Build from the root of an iobench checkout:
#   docker build -f %[1]s --target generator -t iobench-http:dev .
#   docker build -f %[1]s --target collector -t iobench:dev .
FROM golang:1.26 AS build
WORKDIR /src
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o /out/ ./cmd/iobench ./cmd/iobench-http

# The agents' image: the lean generator alone, static, on an empty base.
FROM scratch AS generator
COPY --from=build /out/iobench-http /iobench-http
USER 65534:65534
ENTRYPOINT ["/iobench-http"]

# The collector's image: iobench (iobench collect merges and judges).
FROM scratch AS collector
COPY --from=build /out/iobench /iobench
USER 65534:65534
ENTRYPOINT ["/iobench"]
`

// Dockerfile returns the Dockerfile to be written at path, its comment naming that path.
func Dockerfile(path string) string { return fmt.Sprintf(dockerfile, path) }

// YAML returns the manifests as one YAML stream, in the order to apply them.
func (m Manifests) YAML() ([]byte, error) {
	objs := []any{m.Service, m.Collector, m.Agents}
	if m.Base != nil {
		objs = append([]any{m.Base}, objs...)
	}
	var out bytes.Buffer
	for _, o := range objs {
		b, err := toYAML(o)
		if err != nil {
			return nil, err
		}
		out.WriteString("---\n")
		out.Write(b)
	}
	return out.Bytes(), nil
}

// toYAML writes o as the API's JSON form (its json tags, omitempty honoured) in YAML's plain style.
func toYAML(o any) ([]byte, error) {
	js, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	var n yaml.Node
	if err := yaml.Unmarshal(js, &n); err != nil {
		return nil, err
	}
	plain(&n)
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&n); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}

// plain drops JSON's flow and quoting styles where YAML reads the same value without them.
func plain(n *yaml.Node) {
	n.Style &^= yaml.FlowStyle
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
		n.Style &^= yaml.DoubleQuotedStyle
	}
	for _, c := range n.Content {
		plain(c)
	}
}

// Write writes the manifests, the Dockerfile and its ignore file into dir and returns the paths.
func (m Manifests) Write(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	y, err := m.YAML()
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{ManifestFile: y, DockerfileFile: []byte(Dockerfile(filepath.Join(dir, DockerfileFile))),
		DockerignoreFile: []byte(Dockerignore)}
	var paths []string
	for _, name := range []string{ManifestFile, DockerfileFile, DockerignoreFile} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, files[name], 0o644); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

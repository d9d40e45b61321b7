package main

import (
	"encoding/json"
	"github.com/iobench/iobench/internal/env"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/handoff"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/workload/hello/hellotest"
)

// heavy are the packages iobench-http must not link: their start-up is what the lean image
// exists to leave behind.
var heavy = []string{
	"github.com/nats-io/nats-server", "modernc.org/sqlite", "github.com/jackc/pgx",
	"github.com/rabbitmq/amqp091-go", "html/template", "gopkg.in/yaml",
	"github.com/iobench/iobench/internal/backend/redis", "github.com/bradfitz/gomemcache", "github.com/go-zeromq/zmq4",
}

func TestLeanImageLinksNoServices(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, h := range heavy {
			if strings.HasPrefix(dep, h) {
				t.Errorf("iobench-http links %s", dep)
			}
		}
	}
}

// TestLeanImageLinksNoK8s keeps the collector out of the agents' image (it lives in iobench
// only) and the Kubernetes API's types out of both binaries: iobench k8s job writes its manifests
// from structs of its own, and only tests decode them into k8s.io/api.
func TestLeanImageLinksNoK8s(t *testing.T) {
	k8s := []string{"k8s.io/", "sigs.k8s.io/"}
	for _, c := range []struct {
		pkg       string
		forbidden []string
	}{
		{"github.com/iobench/iobench/cmd/iobench-http", append(k8s, "github.com/iobench/iobench/internal/k8sjob",
			"github.com/iobench/iobench/internal/collect", "github.com/iobench/iobench/internal/merge", "net/http")},
		{"github.com/iobench/iobench/cmd/iobench", k8s},
	} {
		out, err := exec.Command("go", "list", "-deps", c.pkg).Output()
		if err != nil {
			t.Fatalf("go list: %v", err)
		}
		deps := strings.Fields(string(out))
		if len(deps) < 20 {
			t.Fatalf("go list -deps gave %d packages: %q", len(deps), deps)
		}
		for _, dep := range deps {
			for _, h := range c.forbidden {
				if dep == h || strings.HasPrefix(dep, strings.TrimSuffix(h, "/")+"/") {
					t.Errorf("%s links %s", c.pkg, dep)
				}
			}
		}
	}
}

// build links iobench and iobench-http into dir with the given build stamps.
func build(t *testing.T, dir, stampIobench, stampLean string) {
	t.Helper()
	for _, b := range []struct{ pkg, stamp string }{{"../iobench", stampIobench}, {".", stampLean}} {
		cmd := exec.Command("go", "build", "-trimpath", "-o", dir+"/",
			"-ldflags", "-X github.com/iobench/iobench/internal/version.Build="+b.stamp, b.pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", b.pkg, err, out)
		}
	}
}

// generator runs `iobench http` from dir and returns the generator named in its record and
// what it printed on stderr.
func generator(t *testing.T, dir, url string, env ...string) (string, string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(dir, "iobench"), "http", "-c2", "-n", "500", "--json", "-", url)
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("iobench http: %v\n%s", err, stderr.String())
	}
	var rec result.Record
	if err := json.Unmarshal(out, &rec); err != nil {
		t.Fatalf("record: %v\n%s", err, out)
	}
	if rec.Counts.Succeeded != 500 || len(rec.Processes) != 1 {
		t.Fatalf("counts %+v, processes %+v", rec.Counts, rec.Processes)
	}
	if rec.Command[0] != filepath.Join(dir, "iobench") || rec.Command[1] != "http" {
		t.Errorf("record command %q, want the command line as typed", rec.Command)
	}
	return rec.Processes[0].Name, stderr.String()
}

func TestHandOff(t *testing.T) {
	if testing.Short() {
		t.Skip("links both binaries")
	}
	url := hellotest.URL(t)
	same, apart := t.TempDir(), t.TempDir()
	build(t, same, "one", "one")
	build(t, apart, "one", "two")

	if name, _ := generator(t, same, url); name != handoff.Image {
		t.Errorf("built together: generator %q, want the lean image %q", name, handoff.Image)
	}
	if name, _ := generator(t, same, url, env.HTTPInProcess+"=1"); name != "iobench" {
		t.Errorf("%s=1: generator %q, want iobench itself", env.HTTPInProcess, name)
	}
	name, stderr := generator(t, apart, url)
	if name != "iobench" || !strings.Contains(stderr, "from another build") {
		t.Errorf("built apart: generator %q, stderr %q; want iobench itself and a note", name, stderr)
	}
}

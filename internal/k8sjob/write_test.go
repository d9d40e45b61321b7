package k8sjob

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteDockerfileAndIgnore checks what Write puts beside the manifests: a Dockerfile whose
// comment builds with -f and the path it was written at, and the ignore file BuildKit reads for it.
func TestWriteDockerfileAndIgnore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "k8s")
	paths, err := Build(Spec{URL: "http://hello:8080/", Agents: 2, Run: "r"}).Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{ManifestFile, DockerfileFile, DockerignoreFile}; len(paths) != len(want) || filepath.Base(paths[2]) != want[2] {
		t.Fatalf("wrote %v, want %v", paths, want)
	}
	df, err := os.ReadFile(filepath.Join(dir, DockerfileFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"generator", "collector"} {
		if want := "docker build -f " + filepath.Join(dir, "Dockerfile") + " --target " + target; !strings.Contains(string(df), want) {
			t.Errorf("Dockerfile lacks %q:\n%s", want, df)
		}
		if !strings.Contains(string(df), " AS "+target+"\n") {
			t.Errorf("Dockerfile has no stage %s", target)
		}
	}
	ig, err := os.ReadFile(filepath.Join(dir, "Dockerfile.dockerignore"))
	if err != nil || string(ig) != Dockerignore {
		t.Fatalf("ignore file %q, %v", ig, err)
	}
}

// TestDockerignoreKeepsTheBuild checks that the ignore file leaves in the build context every
// file the images' Go build reads (each package of the module that cmd/iobench and
// cmd/iobench-http link, go.mod and go.sum), and leaves out what it need not send.
func TestDockerignoreKeepsTheBuild(t *testing.T) {
	kept := map[string]bool{}
	for _, line := range strings.Split(Dockerignore, "\n") {
		if name, ok := strings.CutPrefix(line, "!"); ok {
			kept[name] = true
		}
	}
	if !strings.Contains(Dockerignore, "\n*\n") || !kept["go.mod"] || !kept["go.sum"] {
		t.Fatalf("the ignore file must leave out everything (*) but what it names, go.mod and go.sum among them:\n%s", Dockerignore)
	}
	root := "../.."
	cmd := exec.Command("go", "list", "-deps", "-f", "{{if .Module}}{{if .Module.Main}}{{.Dir}}{{end}}{{end}}", "./cmd/iobench", "./cmd/iobench-http")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	abs, _ := filepath.Abs(root)
	dirs := strings.Fields(string(out))
	if len(dirs) < 10 {
		t.Fatalf("go list gave %d of the module's packages: %v", len(dirs), dirs)
	}
	for _, d := range dirs {
		rel, err := filepath.Rel(abs, d)
		if top := strings.Split(filepath.ToSlash(rel), "/")[0]; err != nil || !kept[top] {
			t.Errorf("package %s is under %s/, which the ignore file leaves out of the build context", rel, top)
		}
	}
	for _, out := range []string{"bin", "results", "docs", ".state"} {
		if kept[out] {
			t.Errorf("the ignore file keeps %s/, which the build does not read", out)
		}
	}
}

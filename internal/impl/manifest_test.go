package impl

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const goodManifest = `
name: demo
language: python
mode: sync
description: a demo
workloads:
  publish:
    variants:
      - name: single
        queue: q
        count: 10
  hello:
    routes: ["/"]
requires:
  commands:
    - name: python3
      hint: apt-get install python3
  python:
    - name: pika
      hint: in requirements.txt
install:
  venv: requirements.txt
start:
  command: ["python", "app.py"]
  env:
    FOO: bar
ready:
  log: "^ready$"
  timeout: 10s
stop:
  signal: TERM
  timeout: 2s
`

func writeImpl(t *testing.T, manifest string, files ...string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoadGood(t *testing.T) {
	dir := writeImpl(t, goodManifest, "requirements.txt")
	m, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "demo" || m.Mode != "sync" || m.Dir != dir || m.Start.Env["FOO"] != "bar" {
		t.Fatalf("manifest %+v", m)
	}
	if got := strings.Join(m.WorkloadNames(), ","); got != "hello,publish" {
		t.Fatalf("workloads %s", got)
	}
	if v, ok := m.Variant("publish", "single"); !ok || v.Count != 10 {
		t.Fatalf("variant %+v %v", v, ok)
	}
	if m.ReadyTimeout().String() != "10s" || m.StopTimeout().String() != "2s" {
		t.Fatalf("timeouts %v %v", m.ReadyTimeout(), m.StopTimeout())
	}
}

// TestLoadBroken checks that every problem of a manifest is reported at once, each with its
// field and a hint, on one line.
func TestLoadBroken(t *testing.T) {
	cases := []struct {
		name     string
		manifest string
		want     []string // each must appear in the error
	}{
		{"empty", "", []string{"empty manifest"}},
		{"not yaml", "name: [unclosed", []string{"not valid YAML"}},
		{"not a mapping", "- a\n- b\n", []string{"must be a mapping"}},
		{"everything missing", "description: x\n", []string{
			"name: missing", "language: missing", "mode: missing", "workloads: missing",
			"start.command: missing", "ready: missing"}},
		{"bad values", `
name: Bad_Name
language: cobol
mode: sometimes
workloads:
  teleport: {}
  hello: {routes: ["nope"]}
  publish:
    variants:
      - {name: a, queue: q, count: 0}
      - {name: a, count: 5, concurrency: -1, persistent: true}
start: {command: [x]}
ready: {log: "(", tcp: listen}
stop: {signal: HUP, timeout: forever}
`, []string{
			`name: "Bad_Name" is not a valid name`, `language: "cobol"`, `mode: "sometimes"`,
			"workloads.teleport: unknown workload", `workloads.hello.routes[0]: "nope" does not start with /`,
			"workloads.publish.variants[0].count: 0", `workloads.publish.variants[1].name: "a" used twice`,
			"workloads.publish.variants[1].queue: missing", "workloads.publish.variants[1].concurrency: -1",
			"variants[1].persistent: persistent messages in a non-durable queue", "ready: both log and tcp given",
			`stop.signal: "HUP"`, `stop.timeout: "forever" is not a positive duration`}},
		{"unknown keys and types", `
name: demo
language: python
mode: async
workloads: {publish: {variants: [{name: a, queue: q, count: many, colour: red}]}}
start: {command: [python, x.py], cmd: y}
ready: {log: ready}
requires: {python: [{name: pika}]}
install: {venv: missing.txt}
extra: 1
`, []string{"extra: unknown key", "start.cmd: unknown key", "variants[0].colour: unknown key",
			"cannot unmarshal", "requires.python[0].hint: missing", "install.venv: missing.txt not found"}},
		{"wrong language for install", `
name: demo
language: php
mode: sync
workloads: {hello: {routes: ["/"]}}
requires: {node: [{name: x, hint: y}]}
install: {venv: r.txt, npm: package.json}
start: {command: [php, x.php]}
ready: {tcp: socket}
`, []string{"install.venv: a virtualenv for a php impl", "install.npm: \"package.json\" is not a package-lock.json",
			"requires.node: Node packages for a php impl", `ready.tcp: "socket"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeImpl(t, tc.manifest)
			_, err := Load(dir)
			var me *ManifestError
			if !errors.As(err, &me) || !errors.Is(err, ErrManifest) {
				t.Fatalf("error %v (%T); want a *ManifestError", err, err)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Fatalf("error spans lines: %q", msg)
			}
			if !strings.HasPrefix(msg, filepath.Join(dir, ManifestFile)+": ") {
				t.Fatalf("error %q does not start with the manifest's path", msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error lacks %q:\n%s", w, msg)
				}
			}
			for _, p := range me.Problems {
				if p.Hint == "" && !strings.Contains(p.Msg, "cannot unmarshal") {
					t.Errorf("problem without a hint: %+v", p)
				}
			}
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(t.TempDir())
	if !errors.Is(err, ErrManifest) || !strings.Contains(err.Error(), "no manifest") {
		t.Fatalf("error %v", err)
	}
}

// TestRepoImpls loads every manifest shipped in impls/.
func TestRepoImpls(t *testing.T) {
	entries, err := List("../../impls")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < 2 {
		t.Fatalf("found %d impls", len(entries))
	}
	for _, e := range entries {
		if e.Err != nil {
			t.Errorf("%s: %v", e.Dir, e.Err)
		}
	}
	m, err := Find("../../impls", "pika-publisher")
	if err != nil || m.Language != "python" {
		t.Fatalf("Find: %v %+v", err, m)
	}
	if _, err := Find("../../impls", "nope"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "pika-publisher") {
		t.Fatalf("Find unknown: %v", err)
	}
}

func TestListFlagsDuplicatesAndFolders(t *testing.T) {
	root := t.TempDir()
	mk := func(lang, name, manifest string) {
		d := filepath.Join(root, lang, name)
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, ManifestFile), []byte(manifest), 0o644)
	}
	base := "mode: sync\nworkloads: {hello: {routes: [/]}}\nstart: {command: [x]}\nready: {tcp: listen}\n"
	mk("php", "a", "name: same\nlanguage: php\n"+base)
	mk("php", "b", "name: same\nlanguage: php\n"+base)
	mk("node", "c", "name: other\nlanguage: php\n"+base)
	entries, err := List(root)
	if err != nil {
		t.Fatal(err)
	}
	var errs []string
	for _, e := range entries {
		if e.Err != nil {
			errs = append(errs, e.Err.Error())
		}
	}
	all := strings.Join(errs, "\n")
	if len(errs) != 2 || !strings.Contains(all, "also the name of") || !strings.Contains(all, "in a folder for node") {
		t.Fatalf("errors:\n%s", all)
	}
}

// FuzzParse feeds arbitrary bytes to the manifest parser: it must never panic, and either
// return a manifest that passes its own validation or a one-line *ManifestError.
func FuzzParse(f *testing.F) {
	f.Add([]byte(goodManifest))
	f.Add([]byte("name: x\nworkloads: {publish: {variants: [{name: a}]}}"))
	f.Add([]byte("{a: [1, {b: c}]}"))
	f.Add([]byte("- - -"))
	f.Add([]byte("ready: {log: '['}\nstop: {timeout: -1s}"))
	f.Add([]byte("workloads: !!binary aGVsbG8="))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse(data, "")
		if err != nil {
			var me *ManifestError
			if !errors.As(err, &me) || len(me.Problems) == 0 {
				t.Fatalf("error %v (%T): want a *ManifestError with problems", err, err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		if m.Name == "" || len(m.Workloads) == 0 || len(m.Start.Command) == 0 {
			t.Fatalf("accepted an incomplete manifest: %+v", m)
		}
	})
}

package impl

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

const goodManifest = `
name: python-demo
language: python
description: a demo
variants:
  - name: single
    mode: sync
    description: one at a time
    env: {X: "1"}
  - name: seed
    mode: async
    seed: "532.7 req/s"
    expect: [content-length-mismatch]
workloads:
  publish:
    variants:
      single: {queue: q, count: 10}
      seed: {queue: q2, count: 20}
  hello:
    routes: ["/"]
  toy:
    greeting: {word: hi, repeat: 2}
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
  signal: INT
  timeout: 2s
`

// writeImpl writes manifest and files (each holding one line) into a new folder
// <tmp>/<language>/<folder> (rel), so that the naming rule applies as in impls/.
func writeImpl(t *testing.T, rel, manifest string, files ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), rel)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
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
	dir := writeImpl(t, "python/demo", goodManifest, "requirements.txt")
	m, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "python-demo" || m.Dir != dir || m.Start.Env["FOO"] != "bar" {
		t.Fatalf("manifest %+v", m)
	}
	if got := strings.Join(m.WorkloadNames(), ","); got != "hello,publish,toy" {
		t.Fatalf("workloads %s", got)
	}
	if v, ok := m.Variant(""); !ok || v.Name != "single" || v.Mode != "sync" || v.Env["X"] != "1" {
		t.Fatalf("default variant %+v %v", v, ok)
	}
	if v, ok := m.Variant("seed"); !ok || v.Mode != "async" || !v.Expects("content-length-mismatch") {
		t.Fatalf("variant seed %+v %v", v, ok)
	}
	if s, _ := SectionOf[toySection](m, "toy"); s.Greeting.Word != "hi" || s.Greeting.Repeat != 2 {
		t.Fatalf("toy section %+v", s)
	}
	if _, ok := m.Variant("nope"); ok {
		t.Fatal("unknown variant found")
	}
	if err := m.UnknownVariant("nope"); !strings.Contains(err.Error(), "choose from single, seed") {
		t.Fatalf("UnknownVariant: %v", err)
	}
	if m.ReadyTimeout().String() != "10s" || m.StopTimeout().String() != "2s" {
		t.Fatalf("timeouts %v %v", m.ReadyTimeout(), m.StopTimeout())
	}
	if m.StopSignal() != syscall.SIGINT || (&Manifest{}).StopSignal() != syscall.SIGTERM {
		t.Fatalf("stop signal %v (want SIGINT), unset %v (want SIGTERM)", m.StopSignal(), (&Manifest{}).StopSignal())
	}
}

// TestLoadBroken checks that every problem of a manifest is reported at once, each with its
// field and a hint, on one line.
func TestLoadBroken(t *testing.T) {
	cases := []struct {
		name     string
		dir      string // <language>/<folder> the manifest is written to
		manifest string
		want     []string // each must appear in the error
	}{
		{"empty", "go/x", "", []string{"empty manifest"}},
		{"not yaml", "go/x", "name: [unclosed", []string{"not valid YAML"}},
		{"not a mapping", "go/x", "- a\n- b\n", []string{"must be a mapping"}},
		{"everything missing", "go/x", "description: x\n", []string{
			`name: missing`, "language: missing", "variants: missing", "workloads: missing",
			"start.command: missing", "ready: missing"}},
		{"name rule", "python/pika-publisher", "name: pika-publisher\nlanguage: python\n", []string{
			`name: "pika-publisher" does not follow the rule <language>-<folder> (name it "python-pika-publisher"`}},
		{"name of another folder", "python/pika-publisher", "name: python-pika\nlanguage: python\n", []string{
			`name: "python-pika" does not follow the rule`, `name it "python-pika-publisher"`}},
		{"old top-level mode", "python/x", "name: python-x\nlanguage: python\nmode: sync\n", []string{
			"mode: unknown key (the mode is a variant's now"}},
		{"variants", "node/x", `
name: node-x
language: node
variants:
  - {name: a, mode: sometimes, expect: [content-length-mismatch, teleport, content-length-mismatch]}
  - {name: a, env: {"1BAD": x}}
  - {mode: async}
workloads: {hello: {routes: [/]}}
start: {command: [node, x.js]}
ready: {tcp: listen}
`, []string{`variants[0].mode: "sometimes" (use one of sync, async)`, `variants[0].expect[1]: unknown finding "teleport"`,
			`variants[0].expect[2]: "content-length-mismatch" listed twice`, `variants[1].name: "a" used twice`,
			"variants[1].mode: missing", "variants[1].env.1BAD: not a valid environment variable name", "variants[2].name: missing"}},
		{"bad values", "python/bad", `
name: Bad_Name
language: cobol
variants: [{name: a, mode: sync}, {name: b, mode: async}]
workloads:
  teleport: {}
  fanuot: {}
  fanout: {}
  hello: {routes: ["nope"], variants: {a: {queue: q, count: 1}}, consumers: {/: [php, x.php]}}
  toy: {greeting: {repeat: 0}}
start: {command: [x]}
ready: {log: "(", tcp: listen}
stop: {signal: HUP, timeout: forever}
`, []string{
			`name: "Bad_Name" is not a valid name`, `language: "cobol"`,
			"workloads.teleport: unknown workload", `workloads.fanuot: unknown workload (did you mean "fanout"?`,
			"workloads.fanout.routes: missing", `workloads.hello.routes[0]: "nope" does not start with /`,
			"workloads.hello.variants: unknown key (known keys here: protocols, routes)",
			"workloads.hello.consumers: unknown key (known keys here: protocols, routes)",
			"workloads.toy.greeting.repeat: not positive", "ready: both log and tcp given",
			`stop.signal: "HUP"`, `stop.timeout: "forever" is not a positive duration`}},
		{"unknown keys and types", "python/demo", `
name: python-demo
language: python
variants: [{name: a, mode: async, colour: red}]
workloads: {toy: {greeting: {word: hi, repeat: many, volume: 11}}, hello: {routes: [/], queues: [q]}}
start: {command: [python, x.py], cmd: y}
ready: {log: ready}
requires: {python: [{name: pika}], commands: [{name: curl}]}
install: {venv: missing.txt}
extra: 1
`, []string{"extra: unknown key", "start.cmd: unknown key", "variants[0].colour: unknown key",
			"line 5: cannot unmarshal !!str `many` into int", "workloads.toy.greeting.volume: unknown key (known keys here: repeat, word)",
			"workloads.hello.queues: unknown key (known keys here: protocols, routes)", "requires.commands[0].hint: missing", "install.venv: missing.txt not found"}},
		{"wrong language for install", "php/demo", `
name: php-demo
language: php
variants: [{name: a, mode: sync}]
workloads: {hello: {routes: ["/"]}}
requires: {node: [{name: x, hint: y}], php_libraries: [{name: symfony/yaml, file: Symfony/Yaml}]}
install: {venv: r.txt, npm: package.json}
start: {command: [php, x.php]}
ready: {tcp: socket}
`, []string{"install.venv: a virtualenv for a php impl", "install.npm: \"package.json\" is not a package-lock.json",
			"requires.node: node prerequisites for a php impl", `ready.tcp: "socket"`,
			`requires.php_libraries[0].file: "Symfony/Yaml" is not an absolute path`, "requires.php_libraries[0].hint: missing"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeImpl(t, tc.dir, tc.manifest)
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

func TestParseRef(t *testing.T) {
	for ref, want := range map[string][2]string{"go-bus": {"go-bus", ""}, "go-bus:sync": {"go-bus", "sync"}, "x:": {"x", ""}} {
		if n, v := ParseRef(ref); n != want[0] || v != want[1] {
			t.Errorf("ParseRef(%q) = %q, %q", ref, n, v)
		}
	}
}

func TestListFlagsLanguageFolder(t *testing.T) {
	root := t.TempDir()
	base := "variants: [{name: a, mode: sync}]\nworkloads: {hello: {routes: [/]}}\nstart: {command: [x]}\nready: {tcp: listen}\n"
	for rel, manifest := range map[string]string{"php/a": "name: php-a\nlanguage: php\n", "node/c": "name: php-c\nlanguage: php\n"} {
		d := filepath.Join(root, rel)
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, ManifestFile), []byte(manifest+base), 0o644)
	}
	entries, err := List(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || entries[1].Err != nil || entries[0].Err == nil || !strings.Contains(entries[0].Err.Error(), "in a folder for node") {
		t.Fatalf("entries %+v", entries)
	}
}

// FuzzParse feeds arbitrary bytes to the manifest parser: it must never panic, and either
// return a manifest that passes its own validation or a one-line *ManifestError.
func FuzzParse(f *testing.F) {
	f.Add([]byte(goodManifest))
	f.Add([]byte("name: x\nworkloads: {publish: {variants: {a: {}}}}"))
	f.Add([]byte("{a: [1, {b: c}]}"))
	f.Add([]byte("- - -"))
	f.Add([]byte("ready: {log: '['}\nstop: {timeout: -1s}\nvariants: [{expect: [x]}]"))
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
		if m.Name == "" || len(m.Workloads) == 0 || len(m.Variants) == 0 || len(m.Start.Command) == 0 {
			t.Fatalf("accepted an incomplete manifest: %+v", m)
		}
	})
}

func TestVariantsText(t *testing.T) {
	m := &Manifest{Variants: []Variant{{Name: "sync", Mode: "sync"}, {Name: "seed", Mode: "async", Expect: []string{"no-keepalive"}}}}
	if got := m.VariantsText(); got != "sync, seed (async)!" {
		t.Fatalf("VariantsText %q", got)
	}
}

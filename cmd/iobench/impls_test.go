package main

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/impl"
)

// init points the commands at the repo's impls/ (tests run in cmd/iobench), unless the
// environment already names a folder.
func init() {
	if os.Getenv(env.ImplsDir) == "" {
		dir, _ := filepath.Abs("../../impls")
		os.Setenv(env.ImplsDir, dir)
	}
}

// TestImplsListsEveryLanguage checks that the Go built-ins are listed like any other impl, with
// their variants and modes.
func TestImplsListsEveryLanguage(t *testing.T) {
	code, stdout, stderr := runCLI("impls")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"go-hello  ", "go-bus  ", "sync, async", "python-asyncio-hello", "python-pika-publisher", "single-persistent (sync)",
		"node-hello  ", "php-amp-loop  ", "php-stream-select  ", "python-sync-hello  ", "seed (async)!"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
}

func TestImplsBrokenManifest(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "php", "x")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "impl.yaml"), []byte("name: x\nlanguage: php\n"), 0o644)
	code, _, stderr := runCLI("impls", "--impls-dir", root)
	if code != 2 || !strings.Contains(stderr, `name it "php-x"`) || !strings.Contains(stderr, "variants: missing") {
		t.Fatalf("exit %d, stderr %q: want 2 with every problem", code, stderr)
	}
}

// flawedHello is a test-only impl whose seed variant reproduces seed 4's ReactPHP flaw (13 bytes
// under Content-Length: 12) and says so, and whose fixed variant has the same flaw unannounced.
const flawedHello = `name: python-flawed
language: python
variants:
  - {name: seed, mode: async, expect: [content-length-mismatch]}
  - {name: fixed, mode: async}
workloads: {hello: {routes: ["/"]}}
start: {command: [python3, server.py]}
ready: {tcp: listen}
`

const flawedServer = `import os, socket, threading
host, port = os.environ["IOBENCH_LISTEN"].rsplit(":", 1)
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind((host, int(port))); s.listen()
def serve(c):
    f = c.makefile("rb")
    while True:
        line = f.readline()
        if not line:
            return
        path = line.split()[1]
        while f.readline() not in (b"\r\n", b""):
            pass
        if path != b"/":
            c.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 4\r\n\r\nnope")
        else:
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 12\r\n\r\nHello world!\n")
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
`

// TestVerifyExpectedFinding checks that a flaw the variant expects is a seed flaw reproduced, not
// a failure, while the same flaw unannounced fails verify (exit 1).
func TestVerifyExpectedFinding(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "python", "flawed")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "impl.yaml"), []byte(flawedHello), 0o644)
	os.WriteFile(filepath.Join(dir, "server.py"), []byte(flawedServer), 0o644)
	code, stdout, stderr := runCLI("verify", dir, "--state-dir", t.TempDir())
	for _, want := range []string{
		`flaw hello seed: seed flaw reproduced: content-length-mismatch: GET /: Content-Length is 12 but "\n" followed the body`,
		`FAIL hello fixed: content-length-mismatch: GET /`,
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "FAIL hello seed") || code != 1 || !strings.Contains(stderr, "python-flawed: 1 check(s) failed") {
		t.Fatalf("exit %d, stderr %q: want 1 for the fixed variant only", code, stderr)
	}
	code, stdout, _ = runCLI("verify", dir+":seed", "--state-dir", t.TempDir())
	if code != 0 || strings.Contains(stdout, "hello fixed") || !strings.Contains(stdout, "flaw hello seed") {
		t.Errorf("verify NAME:seed: exit %d, want 0 with the seed variant alone checked:\n%s", code, stdout)
	}
	code, _, stderr = runCLI("verify", dir+":nope", "--state-dir", t.TempDir())
	if code != 2 || !strings.Contains(stderr, `has no variant "nope"; choose from seed, fixed`) {
		t.Errorf("verify NAME:nope: exit %d, stderr %q: want 2 naming the variants", code, stderr)
	}
}

// TestVerifyGoPublisher verifies seed 2's Go publishers as an impl on the RabbitMQ of the tests:
// each variant's messages counted at the broker, on the queue and delivery mode it declares.
func TestVerifyGoPublisher(t *testing.T) {
	if os.Getenv(env.AMQPURL) == "" {
		t.Skip("no RabbitMQ: run through make test, which starts one and sets " + env.AMQPURL)
	}
	code, stdout, stderr := runCLI("verify", "go-publisher", "-n", "300", "--state-dir", t.TempDir())
	for _, v := range []string{"single", "pool", "ultra", "single-fast", "pool-fast", "ultra-fast"} {
		if want := "ok   publish " + v + ": 300 of 300 messages counted at the broker"; !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q", want)
		}
	}
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
}

// TestRepoImpls loads every manifest shipped in impls/ with the workloads' own sections: each
// valid, named by the rule, the Go built-ins among them.
func TestRepoImpls(t *testing.T) {
	entries, err := impl.List(os.Getenv(env.ImplsDir))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, e := range entries {
		if e.Err != nil {
			t.Errorf("%s: %v", e.Dir, e.Err)
			continue
		}
		names[e.Manifest.Name] = true
	}
	for _, want := range []string{"go-hello", "go-bus", "python-asyncio-hello", "python-pika-publisher", "python-aio-pika-publisher", "php-cachequeue"} {
		if !names[want] {
			t.Errorf("impls/ lacks %s: %v", want, names)
		}
	}
	m, err := impl.Find(os.Getenv(env.ImplsDir), "python-pika-publisher")
	if err != nil || m.Language != "python" {
		t.Fatalf("Find: %v %+v", err, m)
	}
	if _, err := impl.Find(os.Getenv(env.ImplsDir), "pika-publisher"); !errors.Is(err, impl.ErrNotFound) || !strings.Contains(err.Error(), "python-pika-publisher") {
		t.Fatalf("Find by the old name: %v", err)
	}
	refs := impl.WorkloadRefs(entries)
	if got := strings.Join(refs["bus"], " "); !strings.Contains(got, "go-bus go-bus:sync go-bus:async") {
		t.Errorf("bus refs %q", got)
	}
	if !slices.Contains(refs["hello"], "python-asyncio-hello") || !slices.Contains(refs["hello"], "go-hello:async") {
		t.Errorf("hello refs %q", refs["hello"])
	}
}

// TestImplsHelpNamesEverySectionKey: the help of `iobench impls` gives each registered workload's
// manifest section, and that help names every key the section takes.
func TestImplsHelpNamesEverySectionKey(t *testing.T) {
	help := newImplsCmd().Long
	for _, w := range impl.Workloads() {
		sec := impl.SectionHelp(w)
		if !strings.Contains(help, sec) || !strings.Contains(help, w) {
			t.Errorf("help lacks %s: %s", w, sec)
		}
		for _, k := range impl.SectionKeys(w) {
			if k = k[strings.LastIndex(k, ".")+1:]; !strings.Contains(sec, k) {
				t.Errorf("%s's help %q lacks its key %s", w, sec, k)
			}
		}
	}
}

package impl

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestEveryLanguageHasAToolchain(t *testing.T) {
	for _, l := range Languages {
		if toolchains[l] == nil {
			t.Errorf("language %s has no toolchain", l)
		}
	}
}

// installAt writes a test-only impl into <tmp>/rel, installs it into a temporary state
// directory and returns the installation.
func installAt(t *testing.T, rel, manifest string, opts InstallOptions, files map[string]string) *Installation {
	t.Helper()
	dir := writeImpl(t, rel, manifest)
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if opts.StateDir == "" {
		opts.StateDir = t.TempDir()
	}
	inst, err := Install(t.Context(), m, opts)
	if err != nil {
		t.Fatal(err)
	}
	return inst
}

const phpNeedy = `name: php-needy
language: php
differs: []
variants: [{name: a, mode: sync}]
workloads: {hello: {routes: [/]}}
requires:
  php_extensions: [{name: ctype}, {name: iobenchnosuch}]
  php_libraries: [{name: acme/widgets, file: /usr/share/php/Acme/Widgets/autoload.php, hint: apt-get install php-acme-widgets}]
start: {command: [php, server.php]}
ready: {tcp: listen}
`

// TestPHPCheck checks a test-only PHP impl against the machine's real php: a loaded extension
// passes, a missing one and a missing library are named with the exact apt-get command, and
// without php at all the interpreter's package is named.
func TestPHPCheck(t *testing.T) {
	if _, err := exec.LookPath("php"); err != nil {
		t.Fatal("php not found; install it with: scripts/install-services.sh (php8.2-cli)")
	}
	inst := installAt(t, "php/needy", phpNeedy, InstallOptions{}, nil)
	err := inst.Check(t.Context())
	want := "impl php-needy: missing PHP extension iobenchnosuch (apt-get install php-iobenchnosuch); " +
		"PHP library acme/widgets (apt-get install php-acme-widgets (looked for /usr/share/php/Acme/Widgets/autoload.php))"
	if !errors.Is(err, ErrMissing) || err.Error() != want {
		t.Fatalf("error\n%v\nwant\n%s", err, want)
	}
	t.Setenv("PATH", t.TempDir())
	if err := inst.Check(t.Context()); err == nil || err.Error() != "impl php-needy: missing command php (apt-get install php8.2-cli)" {
		t.Fatalf("without php: %v", err)
	}
}

func TestPHPExtensionPackage(t *testing.T) {
	for ext, pkg := range map[string]string{"redis": "php-redis", "MBString": "php-mbstring", "pdo_pgsql": "php-pgsql", "mysqli": "php-mysql", "pdo_sqlite": "php-sqlite3"} {
		if got := phpExtensionPackage(ext); got != pkg {
			t.Errorf("%s: %s, want %s", ext, got, pkg)
		}
	}
}

// TestPHPAutoload loads a class of a test namespace through the committed
// impls/php/lib/autoload.php, and a Debian-style library's autoload.php from a fake root.
func TestPHPAutoload(t *testing.T) {
	if _, err := exec.LookPath("php"); err != nil {
		t.Fatal("php not found; install it with: scripts/install-services.sh (php8.2-cli)")
	}
	lib, _ := filepath.Abs("../../impls/php/lib/autoload.php")
	dir := t.TempDir()
	write := func(rel, body string) {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("src/Http/Greeter.php", "<?php\nnamespace App\\Http;\nfinal class Greeter { public static function hi(): string { return 'Hello world!'; } }\n")
	write("debian/Acme/Widgets/autoload.php", "<?php\nfunction acme_widgets(): string { return 'widgets'; }\n")
	script := `require $argv[1]; iobench_autoload('App\\', $argv[2] . '/src'); iobench_require_debian(['Acme/Widgets', 'Acme/Absent'], $argv[2] . '/debian');
echo App\Http\Greeter::hi(), ' ', acme_widgets(), ' ', class_exists('App\Nope') ? 'yes' : 'no';`
	out, err := exec.CommandContext(t.Context(), "php", "-r", script, lib, dir).CombinedOutput()
	if err != nil || string(out) != "Hello world! widgets no" {
		t.Fatalf("php: %v: %q", err, out)
	}
}

const goImpl = `name: go-hello
language: go
differs: []
variants: [{name: async, mode: async}]
workloads: {hello: {routes: [/]}}
start: {command: [iobench, serve, hello]}
ready: {tcp: listen}
`

// TestGoToolchain checks that "iobench" in start.command is the executable given to Install, and
// that a missing one is named with how to build it.
func TestGoToolchain(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	inst := installAt(t, "go/hello", goImpl, InstallOptions{Executable: exe}, nil)
	if err := inst.Check(t.Context()); err != nil {
		t.Fatal(err)
	}
	if argv := inst.Command(); argv[0] != exe || strings.Join(argv[1:], " ") != "serve hello" {
		t.Fatalf("command %v", argv)
	}
	inst.Executable = filepath.Join(t.TempDir(), "iobench")
	err = inst.Check(t.Context())
	if !errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), "missing iobench executable "+inst.Executable+" (build it with make build") {
		t.Fatalf("error %v", err)
	}
}

const nodeImpl = `name: node-t
language: node
differs: []
variants: [{name: async, mode: async}]
workloads: {hello: {routes: [/]}}
requires: {node: [{name: iobench-no-such-package}]}
install: {npm: package-lock.json}
start: {command: [node, server.js]}
ready: {tcp: listen}
`

// TestNodeToolchain runs npm ci for real on a lock file without dependencies (no registry
// needed), reuses it the second time, and names a package that does not resolve.
func TestNodeToolchain(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm not installed; iobench never installs Node itself")
	}
	files := map[string]string{
		"package.json":      `{"name": "node-t", "version": "1.0.0", "private": true}`,
		"package-lock.json": `{"name": "node-t", "version": "1.0.0", "lockfileVersion": 3, "requires": true, "packages": {"": {"name": "node-t", "version": "1.0.0"}}}`,
	}
	state := t.TempDir()
	inst := installAt(t, "node/t", nodeImpl, InstallOptions{StateDir: state}, files)
	if inst.Reused || inst.NodePath != filepath.Join(inst.Dir, "node", "node_modules") {
		t.Fatalf("first install %+v", inst)
	}
	again, err := Install(t.Context(), inst.Manifest, InstallOptions{StateDir: state})
	if err != nil || !again.Reused {
		t.Fatalf("second install %+v %v", again, err)
	}
	err = inst.Check(t.Context())
	if !errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), "Node package iobench-no-such-package (add iobench-no-such-package to package.json") {
		t.Fatalf("error %v", err)
	}
}

// TestInstallRelativeStateDir: a relative --state-dir becomes absolute, so that servers started
// from other directories (php-fpm reads its config by path) find the installation.
func TestInstallRelativeStateDir(t *testing.T) {
	t.Chdir(t.TempDir())
	inst := installAt(t, "go/rel", "name: go-rel\nlanguage: go\ndiffers: []\nvariants: [{name: a, mode: sync}]\n"+
		"workloads: {hello: {routes: [/]}}\nstart: {command: [iobench, serve, hello]}\nready: {tcp: listen}\n",
		InstallOptions{StateDir: "state"}, nil)
	if !filepath.IsAbs(inst.Dir) {
		t.Fatalf("installed in %s; want an absolute path", inst.Dir)
	}
}

package impl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const fpmManifest = `name: php-web
language: php
differs: []
variants: [{name: sync, mode: sync}]
workloads: {cachequeue: {routes: [/cache/redis]}}
start: {php_fpm: {root: web, script: front.php}}
`

// TestLoadPHPFPM: a php_fpm start needs no command and no readiness, and names its document root
// and front controller.
func TestLoadPHPFPM(t *testing.T) {
	dir := writeImpl(t, "php/web", fpmManifest)
	if err := os.Mkdir(filepath.Join(dir, "web"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "web", "front.php"), []byte("<?php\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.PHPFPMRoot() != filepath.Join(dir, "web") || m.PHPFPMScript() != filepath.Join(dir, "web", "front.php") {
		t.Errorf("root %s, script %s", m.PHPFPMRoot(), m.PHPFPMScript())
	}
	inst := &Installation{Manifest: m, Dir: "/state"}
	if inst.phpINI() != nil {
		t.Errorf("no start.php_fpm.ini, yet settings %v", inst.phpINI())
	}
	m.Start.PHPFPM.INI = map[string]string{"opcache.preload": "{dir}/preload.php", "session.save_path": "{state}/s"}
	if got := inst.phpINI(); got["opcache.preload"] != dir+"/preload.php" || got["session.save_path"] != "/state/s" || m.Start.PHPFPM.INI["opcache.preload"] != "{dir}/preload.php" {
		t.Errorf("settings %v; want {dir} and {state} expanded in a copy", got)
	}
	m.Start.PHPFPM.Root, m.Start.PHPFPM.Script = "", ""
	if m.PHPFPMScript() != filepath.Join(dir, "public", "index.php") {
		t.Errorf("default script %s, want public/index.php", m.PHPFPMScript())
	}
}

// TestLoadPHPFPMBroken reports every misuse of php_fpm at once.
func TestLoadPHPFPMBroken(t *testing.T) {
	cases := []struct {
		name, dir, manifest string
		want                []string
	}{
		{"both command and php_fpm", "php/web", strings.Replace(fpmManifest, "start: {php_fpm", "start: {command: [php, x.php], php_fpm", 1),
			[]string{"start: both command and php_fpm given"}},
		{"missing front controller, readiness given", "php/web", fpmManifest + "ready: {tcp: listen}\n",
			[]string{"start.php_fpm: web/front.php not found", "ready: PHP-FPM's readiness is iobench's"}},
		{"not PHP, not HTTP", "python/web", strings.NewReplacer("php-web", "python-web", "language: php", "language: python",
			"cachequeue: {routes: [/cache/redis]}", "bus: {queues: [q]}").Replace(fpmManifest),
			[]string{"start.php_fpm: PHP-FPM for a python impl", "start.php_fpm: serves HTTP, but no HTTP workload is declared"}},
		{"bad ini setting", "php/web", strings.Replace(fpmManifest, "script: front.php", `script: front.php, ini: {"opcache enable": "1"}`, 1),
			[]string{`start.php_fpm.ini: "opcache enable": "1" is not a php.ini setting`}},
		{"script outside, unknown key", "php/web", strings.Replace(fpmManifest, "script: front.php", "script: ../x.php, workers: 4", 1),
			[]string{`start.php_fpm.script: "../x.php" is outside the document root`, "start.php_fpm.workers: unknown key"}},
		{"extensions: a path, one required missing", "php/web", strings.Replace(fpmManifest, "script: front.php", "script: front.php, extensions: [opcache, ../curl.so]", 1) +
			"requires: {php_extensions: [{name: redis}]}\n",
			[]string{`start.php_fpm.extensions: "../curl.so" is not an extension's name`, `start.php_fpm.extensions: lacks "redis", which requires.php_extensions names`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(writeImpl(t, tc.dir, tc.manifest))
			if err == nil {
				t.Fatal("loaded")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

func TestLoopbackPort(t *testing.T) {
	if p, err := loopbackPort("127.0.0.1:8080"); err != nil || p != 8080 {
		t.Errorf("127.0.0.1:8080: %d %v", p, err)
	}
	for addr, want := range map[string]string{
		"":             "IOBENCH_LISTEN, but it is not set",
		"0.0.0.0:80":   "nginx listens on 127.0.0.1 only; give 127.0.0.1:80",
		"127.0.0.1":    "is not host:port",
		"127.0.0.1:0":  "is not host:port",
		"127.0.0.1:ab": "is not host:port",
	} {
		if _, err := loopbackPort(addr); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v; want %q", addr, err, want)
		}
	}
}

func TestPoolSize(t *testing.T) {
	if n, err := poolSize([]string{"PATH=/bin", "IOBENCH_CONCURRENCY=3"}); n != 3 || err != nil {
		t.Errorf("3: %d %v", n, err)
	}
	if n, err := poolSize([]string{"PATH=/bin"}); n != 0 || err != nil {
		t.Errorf("unset: %d %v", n, err)
	}
	if _, err := poolSize([]string{"IOBENCH_CONCURRENCY=0"}); err == nil || !strings.Contains(err.Error(), "at least 1") {
		t.Errorf("0: %v", err)
	}
}

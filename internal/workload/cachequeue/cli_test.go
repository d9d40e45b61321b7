package cachequeue

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/workload/workloadtest"
)

// TestCommandBadInput: every mistake on the cachequeue command line, and a serve command
// started without its stores, is one line and exit 2, before any load.
func TestCommandBadInput(t *testing.T) {
	for _, name := range []string{env.RedisURL, env.MemcachedAddr, env.ZMQEndpoint} {
		t.Setenv(name, "")
	}
	impls := []string{"--impls-dir", "../../../impls", "--state-dir", implState}
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"no impl", []string{Name}, "--impl is required"},
		{"unknown route", []string{Name, "--impl", "go-cachequeue", "--route", "/cache/mysql"}, `--route "/cache/mysql": use one of`},
		{"route the impl lacks", []string{Name, "--impl", "go-cachequeue", "--route", "/cache/predis"}, "go-cachequeue does not serve it"},
		{"zero connections", []string{Name, "--impl", "go-cachequeue", "-c", "0"}, "at least 1"},
		{"unknown variant", []string{Name, "--impl", "go-cachequeue:nosuch"}, "nosuch"},
		{"serve without stores", []string{"serve", Name, "--listen", "127.0.0.1:0"}, "must be set; 'iobench cachequeue' sets them"},
		{"serve bad workers", []string{"serve", Name, "--workers", "x"}, `invalid argument "x"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if args[0] == Name {
				args = append(append([]string{}, args...), impls...)
			}
			code, _, stderr := workloadtest.Run(args...)
			if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q: want exit 2 and one line containing %q", code, stderr, tt.want)
			}
		})
	}
}

// TestCommand runs `iobench cachequeue` against go-cachequeue (started by the test binary's
// `serve cachequeue`) on stores of the test's own, and reads the count check from its text and
// its record.
func TestCommand(t *testing.T) {
	target(t, "go-cachequeue", "async") // installed into implState, or skipped naming what is missing
	privateStores(t)
	path := filepath.Join(t.TempDir(), "r.json")
	code, stdout, stderr := workloadtest.Run(Name, "--impl", "go-cachequeue:async", "--route", "/cache/redis", "-c", "2",
		"-d", "500ms", "--warmup", "200ms", "--quiet", "--json", path, "--impls-dir", "../../../impls", "--state-dir", implState)
	if code != 0 || !strings.Contains(stdout, "Route /cache/redis, counted in the store (verified)") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Workload   string `json:"workload"`
		Cachequeue struct {
			Route    string `json:"route"`
			Answered int64  `json:"answered"`
			Counted  bool   `json:"counted"`
		} `json:"cachequeue"`
	}
	if err := json.Unmarshal(data, &rec); err != nil || rec.Workload != Name || !rec.Cachequeue.Counted ||
		rec.Cachequeue.Route != "/cache/redis" || rec.Cachequeue.Answered == 0 {
		t.Fatalf("record %+v, %v", rec, err)
	}
}

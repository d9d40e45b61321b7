package main

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/engine"
	"github.com/iobench/iobench/internal/h2wire/h2wiretest"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/workload/hello/hellotest"
)

func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr + "/"
}

// stackTrace matches the header of a goroutine's stack in a Go traceback.
var stackTrace = regexp.MustCompile(`goroutine \d+ \[`)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = execute(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestHTTPBadInput(t *testing.T) {
	closed := closedPort(t)
	tests := []struct {
		name string
		args []string
		want string // a piece of the one-line message
	}{
		{"no url", []string{"http"}, "exactly one URL"},
		{"malformed url", []string{"http", "http://[::1"}, "missing ']'"},
		{"not http", []string{"http", "ftp://127.0.0.1/"}, "only http"},
		{"unknown host", []string{"http", "http://no-such-host.invalid/"}, "unknown host"},
		{"closed port", []string{"http", closed}, "cannot connect"},
		{"zero connections", []string{"http", "-c", "0", closed}, "at least 1"},
		{"threads above connections", []string{"http", "-t", "4", "-c", "2", closed}, "4 threads for 2 connections"},
		{"negative duration", []string{"http", "-d", "-5s", closed}, "negative"},
		{"bad duration", []string{"http", "-d", "soon", closed}, "cannot read duration"},
		{"zero rate", []string{"http", "-R", "0", closed}, "rate must be positive"},
		{"rate with count", []string{"http", "-R", "100", "-n", "10", closed}, "do not mix"},
		{"header without colon", []string{"http", "-H", "X-Nope", closed}, "missing ':'"},
		{"too many connections", []string{"http", "-c", "50000000", closed}, "open files"},
		{"unwritable json", []string{"http", "--json", "/proc/no/such/dir/r.json", closed}, "cannot write"},
		{"unknown flag", []string{"http", "--bogus", closed}, "unknown flag"},
		{"bad regex", []string{"http", "--expect-body", "(", closed}, "regular expression"},
		{"method not a token", []string{"http", "-m", "GE(T", closed}, "not an HTTP method"},
		{"method with space", []string{"http", "-m", "GET /x", closed}, "not an HTTP method"},
		{"unknown engine", []string{"http", "--engine", "threads", closed}, "--engine loop"},
		{"pipeline zero", []string{"http", "--pipeline", "0", closed}, "--pipeline 0 is out of range"},
		{"pipeline too deep", []string{"http", "--pipeline", "1025", closed}, "give 1 to 1024"},
		{"pipeline without keep-alive", []string{"http", "--pipeline", "4", "--no-keepalive", closed}, "needs keep-alive"},
		{"pipeline on goroutines", []string{"http", "--pipeline", "4", "--engine", "goroutine", closed}, "event loop only"},
		{"streams without http2", []string{"http", "--streams", "4", closed}, "--streams needs HTTP/2"},
		{"pipeline with http2", []string{"http", "--http2-prior-knowledge", "--pipeline", "4", closed}, "with HTTP/2 use --streams"},
		{"streams without keep-alive", []string{"http", "--http2-prior-knowledge", "--streams", "4", "--no-keepalive", closed}, "keep-alive"},
		{"streams zero", []string{"http", "--http2-prior-knowledge", "--streams", "0", closed}, "--streams 0 is out of range"},
		{"streams too many", []string{"http", "--http2-prior-knowledge", "--streams", "1025", closed}, "give 1 to 1024"},
		{"http2 on http", []string{"http", "--http2", closed}, "needs an https:// URL"},
		{"prior knowledge on https", []string{"http", "--http2-prior-knowledge", strings.Replace(closed, "http:", "https:", 1)}, "needs an http:// URL"},
		{"unknown arrivals", []string{"http", "-R", "100", "--arrivals", "bursty", closed}, "use --arrivals even or --arrivals poisson"},
		{"seed without poisson", []string{"http", "-R", "100", "--seed", "3", closed}, "add --arrivals poisson"},
		{"poisson without a rate", []string{"http", "--arrivals", "poisson", closed}, "give its rate with -R"},
		{"unknown serve", []string{"serve", "nosuch"}, `unknown command "nosuch" for "iobench serve"`},
		{"unknown services", []string{"services", "nosuch"}, `unknown command "nosuch" for "iobench services"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(tt.args...)
			if code != 2 {
				t.Errorf("exit code %d, want 2 (stderr %q)", code, stderr)
			}
			if strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr %q: want one line containing %q", stderr, tt.want)
			}
			if stackTrace.MatchString(stderr) || strings.Contains(stderr, "panic") { // "goroutine" alone names an engine
				t.Errorf("stack trace in %q", stderr)
			}
		})
	}
}

func TestHTTPAgainstHelloWritesRecord(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine string) {
		url := hellotest.URL(t)
		path := filepath.Join(t.TempDir(), "out", "r.json")
		code, stdout, stderr := runCLI("http", "--engine", engine, "-t1", "-c4", "-n", "2000", "--latency", "--expect-body", "^Hello world!$", "--json", path, url)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		for _, want := range []string{"Thread Stats", "Latency Distribution", "99.99%", "2000 requests in", "Requests/sec:", "Transfer/sec:"} {
			if !strings.Contains(stdout, want) {
				t.Errorf("output lacks %q:\n%s", want, stdout)
			}
		}
		rec, err := result.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Counts.Succeeded != 2000 || rec.Counts.Failed != 0 || rec.Latency.Count != 2000 {
			t.Fatalf("counts %+v, latency count %d; want 2000 successes", rec.Counts, rec.Latency.Count)
		}
		if rec.Counts.BytesRead == 0 || len(rec.Processes) == 0 || rec.Processes[0].Role != "generator" {
			t.Fatalf("bytes %d, processes %+v", rec.Counts.BytesRead, rec.Processes)
		}
		if rec.Parameters["engine"] != engine {
			t.Errorf("record says engine %v, want %s", rec.Parameters["engine"], engine)
		}
		if rec.Environment.Cores == 0 || rec.Environment.GoVersion == "" || len(rec.Command) == 0 {
			t.Fatalf("environment or command missing: %+v %v", rec.Environment, rec.Command)
		}
	})
}

// TestHTTPPipelinedRecord runs 16 deep against the hello server: every request counted once, and
// the record names the depth as a parameter and as the case that sets its runs apart.
func TestHTTPPipelinedRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	code, _, stderr := runCLI("http", "-t1", "-c4", "-n", "3001", "--pipeline", "16", "--json", path, hellotest.URL(t))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rec, err := result.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Counts.Succeeded != 3001 || rec.Counts.Failed != 0 || rec.Parameters["pipeline"] != 16.0 || rec.Case != "pipeline 16" {
		t.Fatalf("counts %+v, pipeline %v, case %q; want 3001 successes, 16, \"pipeline 16\"", rec.Counts, rec.Parameters["pipeline"], rec.Case)
	}
}

// TestHTTPH2CRecord runs h2c with 8 streams per connection against the conformance server: every
// request counted once, and the record names the protocol and streams, and counts the frames.
func TestHTTPH2CRecord(t *testing.T) {
	url, _ := h2wiretest.Start(t, h2wiretest.Script{})
	path := filepath.Join(t.TempDir(), "r.json")
	code, stdout, stderr := runCLI("http", "-t1", "-c2", "-n", "1000", "--http2-prior-knowledge", "--streams", "8", "--json", path, url)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rec, err := result.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	h := rec.HTTP2
	if rec.Counts.Succeeded != 1000 || h == nil || h.Protocol != "h2c" || h.Streams != 8 || h.FramesSent["headers"] != 1000 || rec.Case != "h2c streams 8" || rec.Parameters["protocol"] != "h2c" {
		t.Fatalf("counts %+v, http2 %+v, case %q, parameters %v", rec.Counts, h, rec.Case, rec.Parameters)
	}
	if !strings.Contains(stdout, "1000 requests in") {
		t.Errorf("text block:\n%s", stdout)
	}
}

func TestHTTPOpenLoopJSONToStdout(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine string) {
		url := hellotest.URL(t)
		code, stdout, stderr := runCLI("http", "--engine", engine, "-c2", "-d1s", "-R", "200", "--json", "-", url)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var rec result.Record
		if err := json.Unmarshal([]byte(stdout), &rec); err != nil {
			t.Fatalf("stdout is not one JSON record: %v\n%s", err, stdout)
		}
		if rec.LoadModel != "open" || rec.Uncorrected == nil || rec.ScheduleLag == nil {
			t.Fatalf("open-loop record lacks its views: model %q", rec.LoadModel)
		}
		if n := rec.Counts.Succeeded; n < 150 || n > 201 {
			t.Fatalf("%d requests at 200 req/s for 1s", n)
		}
		if !strings.Contains(stderr, "uncorrected") {
			t.Errorf("text block should go to stderr when the record takes stdout: %q", stderr)
		}
	})
}

// forEachEngine runs a test with each load engine (--engine).
func forEachEngine(t *testing.T, test func(t *testing.T, engine string)) {
	for _, e := range engine.Engines {
		t.Run(e, func(t *testing.T) { test(t, e) })
	}
}

func TestVersion(t *testing.T) {
	code, stdout, _ := runCLI("version")
	if code != 0 || !strings.HasPrefix(stdout, "iobench ") || !strings.Contains(stdout, "commit") {
		t.Fatalf("version: %d %q", code, stdout)
	}
}

// TestMain lets the test binary stand in for iobench when a suite starts a built-in system under
// test as a child, or --agents-local its agents (os.Executable is the test binary):
// `iobench.test serve ...` runs the CLI.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && (os.Args[1] == "serve" || os.Args[1] == "http") { // http: --agents-local's agents
		os.Exit(execute(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

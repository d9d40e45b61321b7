package suite

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/scenario"
	_ "github.com/iobench/iobench/internal/workload/bus" // the workloads this test runs
	"github.com/iobench/iobench/internal/workload/hello"
	_ "github.com/iobench/iobench/internal/workload/publish"
	_ "github.com/iobench/iobench/internal/workload/web"
)

// TestMain lets the test binary stand in for iobench when go-hello's manifest runs
// `iobench serve hello`: the suite gets this executable as Options.Binary.
func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == "serve" && os.Args[2] == "hello" {
		os.Exit(serveHello())
	}
	os.Exit(m.Run())
}

func serveHello() int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	ln, err := net.Listen("tcp", os.Getenv(env.Listen))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if err := hello.Serve(ctx, ln); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

const implsRoot = "../../impls"

// parse expands a scenario file's text against the impls of the repo.
func parse(t *testing.T, text string) *scenario.Suite {
	t.Helper()
	known, err := Known(implsRoot)
	if err != nil {
		t.Fatal(err)
	}
	s, err := parseWith(known, text)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func parseWith(known scenario.Known, text string) (*scenario.Suite, error) {
	return scenario.Parse("t.yaml", []byte(text), known)
}

func options(t *testing.T) Options {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Options{Binary: exe, Impls: implsRoot, StateDir: t.TempDir(), Command: []string{"suite.test"}}
}

// TestHelloGoBesidePython runs go-hello beside python-asyncio-hello through the suite, real
// processes on 127.0.0.1 with bounded load: every run verified, each impl installed once, and
// each record carrying its own impl's process cost.
func TestHelloGoBesidePython(t *testing.T) {
	s := parse(t, `name: langs
workload: hello
impls: [go-hello, python-asyncio-hello]
params: {load: [closed, open], connections: 4, threads: 1}
repeats: 1
warmup: 200ms
duration: 1s
`)
	opts := options(t)
	var installs []string
	opts.OnInstall = func(name string) { installs = append(installs, name) }
	outs := Run(t.Context(), s, opts)
	if len(outs) != 4 {
		t.Fatalf("%d outcomes, want 4", len(outs))
	}
	if got := strings.Join(installs, " "); got != "go-hello python-asyncio-hello" {
		t.Errorf("installs %q: want each impl once", got)
	}
	for _, o := range outs {
		if o.Err != nil || o.Record == nil {
			t.Fatalf("%s: %v", o.Run.ID, o.Err)
		}
		rec := o.Record
		if rec.Impl != o.Run.Impl || rec.Variant != "async" || rec.Mode != "async" || rec.Counts.Succeeded == 0 || rec.Counts.Failed != 0 {
			t.Errorf("%s: impl %q variant %q mode %q counts %+v", o.Run.ID, rec.Impl, rec.Variant, rec.Mode, rec.Counts)
		}
		var sut int
		for _, p := range rec.Processes {
			if p.Role != "sut" {
				continue
			}
			sut++
			if p.Name != rec.Impl || p.CPUUser+p.CPUSystem <= 0 || p.PeakRSS == 0 {
				t.Errorf("%s: SUT process %+v: want %s's own CPU and RSS", o.Run.ID, p, rec.Impl)
			}
		}
		if sut != 1 {
			t.Errorf("%s: %d SUT processes in %+v", o.Run.ID, sut, rec.Processes)
		}
	}
}

// TestVariantChoice checks how a run's impl reference and mode parameter choose the variant.
func TestVariantChoice(t *testing.T) {
	st := &state{opts: options(t), installs: map[string]installed{}}
	cases := []struct {
		ref, mode, variant, err string
	}{
		{"go-bus", "sync", "sync", ""},
		{"go-bus", "async", "async", ""},
		{"go-bus", "", "sync", ""},
		{"go-bus:async", "", "async", ""},
		{"go-bus:async", "sync", "", "variant async is async but the run asks for mode sync"},
		{"go-bus:nope", "", "", `impl go-bus has no variant "nope"; choose from sync, async`},
		{"go-hello", "sync", "", "impl go-hello has no sync variant; drop mode: sync or choose from async"},
		{"nosuch", "", "", `impl not found: "nosuch"`},
	}
	for _, tc := range cases {
		r := scenario.Run{Impl: tc.ref, Params: map[string]any{}}
		if tc.mode != "" {
			r.Params["mode"] = tc.mode
		}
		s, err := st.target(t.Context(), r)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s mode %q: error %v, want %q", tc.ref, tc.mode, err, tc.err)
		case tc.err == "" && (err != nil || s.Variant.Name != tc.variant):
			t.Errorf("%s mode %q: variant %q, %v; want %s", tc.ref, tc.mode, s.Variant.Name, err, tc.variant)
		}
	}
}

// TestSkipsWhatIsNotInstalled runs a suite on a machine made to lack two things: an impl's
// runtime (python-needy requires a command that no PATH has) and a service's server (PATH is
// emptied and no RabbitMQ is given, so publish's local broker cannot start). Those runs, the
// open loop whose closed-loop peer was skipped included, are skipped naming what to install; the
// suite goes on and go-hello's runs measure.
func TestSkipsWhatIsNotInstalled(t *testing.T) {
	root := t.TempDir()
	for _, dir := range []string{"go/hello", "go/publisher"} {
		copyImpl(t, filepath.Join(implsRoot, dir), filepath.Join(root, dir))
	}
	needy := filepath.Join(root, "python", "needy")
	writeFile(t, filepath.Join(needy, "impl.yaml"), "name: python-needy\nlanguage: python\ndiffers: []\nvariants: [{name: a, mode: async}]\n"+
		"workloads: {hello: {routes: [/]}}\nstart: {command: [python3, app.py]}\nready: {tcp: listen}\n"+
		"requires: {commands: [{name: iobench-no-such-runtime, hint: apt-get install iobench-no-such-runtime}]}\n")
	known, err := Known(root)
	if err != nil {
		t.Fatal(err)
	}
	s, err := scenario.Parse("t.yaml", []byte(`name: skip
workload: hello
impls: [go-hello, python-needy]
params: {load: [closed, open], connections: 2, threads: 1}
repeats: 1
warmup: 100ms
duration: 500ms
---
name: skip-broker
workload: publish
impls: [go-publisher:single]
params: {count: 10}
services: {broker: local}
repeats: 1
`), known)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir())
	t.Setenv(env.AMQPURL, "")
	t.Setenv(env.StateDir, t.TempDir())
	opts := options(t)
	opts.Impls = root
	var got []string
	for _, o := range Run(t.Context(), s, opts) {
		switch {
		case o.Err != nil:
			t.Errorf("%s failed: %v; want it measured or skipped", o.Run.ID, o.Err)
		case o.Skip != nil:
			got = append(got, o.Run.Impl+" skipped: "+o.Skip.Error())
		case o.Record == nil || o.Record.Counts.Succeeded == 0:
			t.Errorf("%s: no record or no success: %+v", o.Run.ID, o.Record)
		default:
			got = append(got, o.Run.Impl+" measured")
		}
	}
	want := []string{
		"go-hello measured",
		"go-hello measured",
		"python-needy skipped: impl python-needy: missing command iobench-no-such-runtime (apt-get install iobench-no-such-runtime); command python3 (apt-get install python3 python3-venv)",
		"python-needy skipped: impl python-needy: missing command iobench-no-such-runtime (apt-get install iobench-no-such-runtime); command python3 (apt-get install python3 python3-venv)",
		"go-publisher:single skipped: rabbitmq: rabbitmq-server not found; install it with scripts/install-services.sh (apt-get install rabbitmq-server) or pass --amqp-url",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("outcomes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// copyImpl copies an impl's folder (flat: a manifest and its files) from src to dst.
func copyImpl(t *testing.T, src, dst string) {
	t.Helper()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dst, e.Name()), string(b))
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

package suite

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
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

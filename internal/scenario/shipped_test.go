package scenario_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/workload"
	_ "github.com/iobench/iobench/internal/workload/bus"
	_ "github.com/iobench/iobench/internal/workload/cachequeue"
	_ "github.com/iobench/iobench/internal/workload/fanout"
	_ "github.com/iobench/iobench/internal/workload/hello"
	_ "github.com/iobench/iobench/internal/workload/publish"
	_ "github.com/iobench/iobench/internal/workload/web"
)

// These tests load scenarios against the registered workloads (package workload), which import
// this package: they live in the external test package.

// repoImpls returns the impl references of the manifests in the repo's impls/.
func repoImpls(t testing.TB) map[string][]string {
	entries, err := impl.List("../../impls")
	if err != nil {
		t.Fatal(err)
	}
	return impl.WorkloadRefs(entries)
}

// TestShipped loads every file under scenarios/, at both sizes, against the registered workloads
// and the repo's impls: they must stay valid, and the quick suite must stay quick.
func TestShipped(t *testing.T) {
	files, _ := filepath.Glob("../../scenarios/*.yaml")
	if len(files) < 3 {
		t.Fatalf("found %d scenario files", len(files))
	}
	full := workload.Known(repoImpls(t))
	full.Full = true
	for _, f := range files {
		if _, err := scenario.Load(f, full); err != nil {
			t.Errorf("%s with --full: %v", f, err)
		}
		s, err := scenario.Load(f, workload.Known(repoImpls(t)))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		t.Logf("%s: %d runs", f, len(s.Runs))
		if s.Name != "quick" {
			continue
		}
		checkQuick(t, s)
	}
}

// checkQuick checks that the quick suite runs every workload that measures an impl (all but
// those whose impls are labels: http), each with a Go impl and an impl of another language, the
// bus on the services it finds, and stays short.
func checkQuick(t *testing.T, s *scenario.Suite) {
	var timed time.Duration
	langs := map[string]map[string]bool{}
	for _, r := range s.Runs {
		timed += r.Warmup
		if n, _ := r.Params["requests"].(int64); n == 0 { // a count of requests (fanout) is not timed
			timed += r.Duration
		}
		if langs[r.Workload] == nil {
			langs[r.Workload] = map[string]bool{}
		}
		langs[r.Workload][strings.SplitN(r.Impl, "-", 2)[0]] = true
		if r.Workload == "bus" && (r.Services["broker"].Kind != scenario.ServiceAuto || r.Services["database"].Kind != scenario.ServiceAuto) {
			t.Errorf("quick bus run %s: services %v, want auto (embedded NATS and SQLite when nothing is installed)", r.ID, r.Services)
		}
	}
	for _, name := range workload.Names() {
		if w, _ := workload.Lookup(name); w.AnyImpl {
			continue
		}
		if !langs[name]["go"] || len(langs[name]) < 2 {
			t.Errorf("quick suite: workload %s runs languages %v, want go and one other", name, langs[name])
		}
	}
	if timed > time.Minute {
		t.Errorf("quick suite: %v of timed runs, want at most a minute", timed)
	}
}

// TestBuiltinImpls checks that the impls of a workload are those the manifests declare: several
// languages in one scenario, a variant by NAME:VARIANT, and names no manifest declares refused.
func TestBuiltinImpls(t *testing.T) {
	known := workload.Known(repoImpls(t))
	s, err := scenario.Parse("t.yaml", []byte("name: langs\nworkload: hello\nimpls: [go-hello, python-asyncio-hello:async]\nrepeats: 1\n---\n"+
		"name: bus\nworkload: bus\nimpls: [go-bus:sync]\nrepeats: 1\n"), known)
	if err != nil {
		t.Fatal(err)
	}
	var impls []string
	for _, r := range s.Runs {
		impls = append(impls, r.Impl)
	}
	if got := strings.Join(impls, " "); got != "go-hello python-asyncio-hello:async go-bus:sync" {
		t.Fatalf("runs' impls %q", got)
	}
	_, err = scenario.Parse("t.yaml", []byte("name: x\nworkload: hello\nimpls: [go-bus, go-hello:sync, python-pika-publisher]\n"), known)
	for _, want := range []string{`unknown impl "go-bus" for workload hello`, `unknown impl "go-hello:sync" for workload hello; did you mean "go-hello:async"?`,
		`unknown impl "python-pika-publisher" for workload hello`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	if _, err := scenario.Parse("t.yaml", []byte("name: x\nworkload: hello\nimpls: [go-hello]\n"), workload.Known(nil)); err == nil {
		t.Error("an impl accepted where no manifest declares the workload")
	}
}

// FuzzLoad feeds the loader arbitrary files: it must never panic, must fail only with scenario.Errors
// (wrapping scenario.ErrInvalid, each with a message), and what it accepts must expand into runs with
// unique IDs, as many as the scenarios ask for.
func FuzzLoad(f *testing.F) {
	files, _ := filepath.Glob("../../scenarios/*.yaml")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		"name: x\nworkload: hello\nimpls: [go-hello]\nparams: {load: [closed, open], connections: [1, 2]}\n",
		"name: x\nworkload: bus\nimpls: [go-bus]\nparams: {n: 5, mode: [sync, async]}\nservices: {broker: \"amqp://127.0.0.1:1/\"}\n",
		"a: &a [1, 2]\nb: *a\n",
		"name: x\nworkload: hello\nimpls: [go-hello]\nparams: {listen: \"127.0.0.1:9\"}\n---\nname: y\nworkload: hello\nimpls: [go-hello]\nparams: {listen: \"127.0.0.1:9\"}\n",
		"- [",
		"name: &n x\nworkload: *n\n",
	} {
		f.Add([]byte(s))
	}
	known := workload.Known(repoImpls(f))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := scenario.Parse("fuzz.yaml", data, known)
		if err != nil {
			var es scenario.Errors
			if !errors.As(err, &es) || !errors.Is(err, scenario.ErrInvalid) || len(es) == 0 {
				t.Fatalf("error %T is not a non-empty scenario.Errors: %v", err, err)
			}
			for _, e := range es {
				if e.Msg == "" || e.File != "fuzz.yaml" {
					t.Fatalf("bad error %+v", e)
				}
			}
			return
		}
		want := 0
		for _, sc := range s.Scenarios {
			n := sc.Repeats * max(1, len(sc.Impls))
			for _, p := range sc.Params {
				n *= len(p.Values)
			}
			want += n
		}
		if len(s.Runs) != want || want == 0 {
			t.Fatalf("%d runs, want %d", len(s.Runs), want)
		}
		seen := map[string]bool{}
		for i, r := range s.Runs {
			if seen[r.ID] || r.Index != i {
				t.Fatalf("run %d: ID %q duplicated or index %d wrong", i, r.ID, r.Index)
			}
			seen[r.ID] = true
		}
	})
}

package scenario

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testKnown is a small registry with one workload of each shape.
func testKnown() Known {
	return Known{Workloads: map[string]WorkloadSpec{
		"hello": {
			Impls: []string{"go-hello", "node-hello"},
			Params: map[string]ParamSpec{
				"load":        {Type: String, Enum: []string{"closed", "open"}, Default: "closed"},
				"connections": {Type: Int, Check: Positive, Doc: "connections kept open"},
				"rate":        {Type: Float},
				"keepalive":   {Type: Bool},
				"timeout":     {Type: Duration},
				"listen":      {Type: Addr},
			},
			Timed: true, DefaultDuration: 10 * time.Second, DefaultWarmup: time.Second,
		},
		"bus": {
			Impls: []string{"go-bus"},
			Params: map[string]ParamSpec{
				"n":    {Type: Int, Required: true},
				"mode": {Type: String, Enum: []string{"sync", "async"}, SUT: true},
			},
			Services: map[string]ServiceSpec{
				"broker":   {Schemes: []string{"amqp", "nats"}},
				"database": {Schemes: []string{"postgres", "sqlite"}},
			},
			Phases: []string{"fill", "commands", "events"},
		},
		"http": {Params: map[string]ParamSpec{"url": {Type: String, Required: true}}, Timed: true},
	}}
}

func TestParseValid(t *testing.T) {
	src := `
name: pair
workload: hello
impls: [go-hello, node-hello]
params:
  load: [closed, open]
  connections: 50
  rate: 1000
  keepalive: false
  timeout: 2s
repeats: 2
duration: 3s
`
	s, err := Parse("suites/quick.yaml", []byte(src), testKnown())
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "quick" || len(s.Scenarios) != 1 {
		t.Fatalf("suite %q with %d scenarios", s.Name, len(s.Scenarios))
	}
	sc := s.Scenarios[0]
	if sc.Duration != 3*time.Second || sc.Warmup != time.Second || sc.Repeats != 2 {
		t.Errorf("timing: duration %v warmup %v repeats %d", sc.Duration, sc.Warmup, sc.Repeats)
	}
	var ids []string
	for _, r := range s.Runs {
		ids = append(ids, r.ID)
	}
	// Interleaved: every variant's first repeat before any second repeat.
	want := []string{
		"pair.go-hello.load-closed.r1", "pair.go-hello.load-open.r1",
		"pair.node-hello.load-closed.r1", "pair.node-hello.load-open.r1",
		"pair.go-hello.load-closed.r2", "pair.go-hello.load-open.r2",
		"pair.node-hello.load-closed.r2", "pair.node-hello.load-open.r2",
	}
	if strings.Join(ids, " ") != strings.Join(want, " ") {
		t.Errorf("runs:\n got %v\nwant %v", ids, want)
	}
	r := s.Runs[1]
	if r.Params["connections"] != int64(50) || r.Params["rate"] != float64(1000) || r.Params["keepalive"] != false ||
		r.Params["timeout"] != 2*time.Second || r.Params["load"] != "open" {
		t.Errorf("typed params: %#v", r.Params)
	}
	if r.Index != 1 || r.Repeat != 1 || r.Repeats != 2 || r.Variant != "pair.go-hello.load-open" || r.Suite != "quick" {
		t.Errorf("run fields: %+v", r)
	}
	if got := r.Label(); got != "pair go-hello load=open #1/2" {
		t.Errorf("label %q", got)
	}
	if len(r.Ports) != 1 || !r.Ports[0].Free() || r.Ports[0].Param != "listen" {
		t.Errorf("ports %+v: want one free port for listen", r.Ports)
	}
}

func TestParseDefaultsAndDocuments(t *testing.T) {
	src := `name: a
workload: hello
impls: [go-hello]
---
name: b
workload: bus
impls: go-bus
params: {n: 10000, mode: [sync, async]}
services: {broker: embedded, database: "postgres://u:p@127.0.0.1:5432/db"}
---
`
	s, err := Parse("x.yaml", []byte(src), testKnown())
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Runs) != 3+6 {
		t.Fatalf("%d runs, want 9", len(s.Runs))
	}
	a := s.Runs[0]
	if a.ID != "a.go-hello.r1" || a.Params["load"] != "closed" || a.Duration != 10*time.Second {
		t.Errorf("defaults not applied: %+v", a)
	}
	b := s.Runs[3]
	if b.ID != "b.go-bus.mode-sync.r1" || b.Duration != 0 || b.Services["broker"].Kind != ServiceEmbedded {
		t.Errorf("bus run: %+v", b)
	}
	if db := b.Services["database"]; db.Kind != ServiceExternal || db.URL != "postgres://u:p@127.0.0.1:5432/db" {
		t.Errorf("database service %+v", db)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string // each must appear, in order, one per error
	}{
		{"unknown workload", "name: x\nworkload: helo\nimpls: [go-hello]\n",
			[]string{`t.yaml:2:11: unknown workload "helo"; did you mean "hello"?`}},
		{"unknown impl and key", "name: x\nworkload: hello\nimpls: [go-helo]\nrepeat: 2\n",
			[]string{`t.yaml:3:9: unknown impl "go-helo" for workload hello; did you mean "go-hello"?`,
				`t.yaml:4:1: unknown scenario key "repeat"; did you mean "repeats"?`}},
		{"wrong types", "name: x\nworkload: hello\nimpls: [go-hello]\nparams:\n  connections: lots\n  rate: [1, fast]\n  keepalive: 1\n",
			[]string{`t.yaml:5:16: parameter connections: want an integer, got text "lots"; connections: connections kept open`,
				`t.yaml:6:13: parameter rate: want a number, got text "fast"`,
				`t.yaml:7:14: parameter keepalive: want true or false, got the integer 1`}},
		{"check and enum", "name: x\nworkload: hello\nimpls: [go-hello]\nparams: {connections: 0, load: opne}\n",
			[]string{`t.yaml:4:23: parameter connections: must be at least 1, got 0`,
				`t.yaml:4:32: parameter load: "opne" is not one of closed, open (did you mean "open"?)`}},
		{"durations", "name: x\nworkload: hello\nimpls: [go-hello]\nduration: 10\nwarmup: soon\n",
			[]string{`t.yaml:4:11: duration: duration 10 has no unit; write 10s`,
				`t.yaml:5:9: warmup: cannot read duration "soon"`}},
		{"untimed and required", "name: x\nworkload: bus\nimpls: [go-bus]\nduration: 10s\n",
			[]string{`t.yaml:1:1: workload bus needs parameter n; add params: {n: 100}`,
				`t.yaml:4:11: workload bus is not timed: it takes no duration`}},
		{"missing keys", "repeats: 0\n",
			[]string{`t.yaml:1:1: scenario has no name`, `t.yaml:1:1: scenario has no workload`,
				`t.yaml:1:10: repeats must be between 1 and 1000, got 0`}},
		{"services", "name: x\nworkload: bus\nimpls: [go-bus]\nparams: {n: 1}\nservices:\n  broker: redis://h\n  db: local\n  database: somewhere\n",
			[]string{`t.yaml:6:11: service broker: URL scheme "redis" is not one of amqp, nats`,
				`t.yaml:7:3: unknown service "db" for workload bus`,
				`t.yaml:8:13: service database: "somewhere" is neither auto, embedded, local nor a URL`}},
		{"duplicates", "name: x\nname: y\nworkload: hello\nimpls: [go-hello, go-hello]\nparams: {connections: [1, 1]}\n",
			[]string{`t.yaml:2:1: scenario key "name" given twice (first at line 1)`,
				`t.yaml:4:19: impl "go-hello" listed twice`,
				`t.yaml:5:27: parameter connections lists 1 twice`}},
		{"duplicate scenario names", "name: x\nworkload: hello\nimpls: [go-hello]\n---\nname: x\nworkload: hello\nimpls: [go-hello]\n",
			[]string{`t.yaml:5: scenario name "x" is used twice (first at line 1)`}},
		{"bad name", "name: ../x\nworkload: hello\nimpls: [go-hello]\n",
			[]string{`t.yaml:1:7: name "../x" has characters a file name should not`}},
		{"syntax", "name: x\nworkload: hello\n  bad: indent\n",
			[]string{`t.yaml:3: not valid YAML: mapping values are not allowed in this context; indent with spaces`}},
		{"not a mapping", "- a\n- b\n", []string{`t.yaml:1: a scenario must be a mapping of keys, not a list`}},
		{"empty", "# nothing\n", []string{`t.yaml: no scenario in the file`}},
		{"empty list", "name: x\nworkload: hello\nimpls: []\nparams: {rate: []}\n",
			[]string{`t.yaml:3:8: impls is empty`, `t.yaml:4:16: parameter rate is an empty list`}},
		{"fixed port shared by two SUTs", "name: x\nworkload: hello\nimpls: [go-hello, node-hello]\nparams: {listen: \"127.0.0.1:8080\"}\nrepeats: 1\n",
			[]string{`t.yaml:1: runs x.go-hello.r1 and x.node-hello.r1 would share port 8080`}},
		{"bad address", "name: x\nworkload: hello\nimpls: [go-hello]\nparams: {listen: \"8080\"}\n",
			[]string{`t.yaml:4:18: parameter listen: address "8080" is not host:port`}},
		{"cpus", "name: x\nworkload: hello\nimpls: [go-hello]\ncpus: {generator: \"0-\", sut: \"1000\", server: \"1\"}\n",
			[]string{`t.yaml:4:19: cpus generator: "0-" is not a CPU list`,
				`t.yaml:4:30: cpus sut: CPU 1000 is not one this machine lets iobench use`,
				`t.yaml:4:38: unknown cpus key "server"`}},
		{"too many runs", "name: x\nworkload: hello\nimpls: [go-hello]\nrepeats: 1000\nparams: {connections: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]}\n",
			[]string{`t.yaml:1: the file expands to more than 10000 runs`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("t.yaml", []byte(tt.src), testKnown())
			if err == nil {
				t.Fatalf("no error; runs %d", len(s.Runs))
			}
			var es Errors
			if !errors.As(err, &es) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %T %v is not Errors wrapping ErrInvalid", err, err)
			}
			if len(es) != len(tt.want) {
				t.Fatalf("%d errors, want %d:\n%v", len(es), len(tt.want), err)
			}
			for i, w := range tt.want {
				if !strings.HasPrefix(es[i].Error(), w) {
					t.Errorf("error %d:\n got %s\nwant %s...", i, es[i], w)
				}
			}
		})
	}
}

func TestPorts(t *testing.T) {
	tests := []struct {
		name, src string
		ok        bool
	}{
		{"one SUT keeps its port across load models and repeats",
			"name: x\nworkload: hello\nimpls: [go-hello]\nparams: {listen: \"127.0.0.1:8080\", load: [closed, open]}\n", true},
		{"auto ports never clash", "name: x\nworkload: hello\nimpls: [go-hello, node-hello]\nparams: {listen: auto}\n", true},
		{"two scenarios, one port", "name: x\nworkload: hello\nimpls: [go-hello]\nparams: {listen: \"127.0.0.1:8080\"}\n---\n" +
			"name: y\nworkload: hello\nimpls: [go-hello]\nparams: {listen: \"127.0.0.1:8080\"}\n", false},
		{"SUT parameters make separate SUTs", "name: x\nworkload: bus\nimpls: [go-bus]\nparams: {n: 1, mode: [sync, async]}\n" +
			"services: {broker: \"amqp://127.0.0.1:5672/\"}\n---\nname: y\nworkload: hello\nimpls: [go-hello]\nparams: {listen: \"127.0.0.1:5672\"}\n", false},
		{"a shared external service is fine", "name: x\nworkload: bus\nimpls: [go-bus]\nparams: {n: 1, mode: [sync, async]}\n" +
			"services: {broker: \"amqp://127.0.0.1:5672/\"}\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("t.yaml", []byte(tt.src), testKnown())
			if (err == nil) != tt.ok {
				t.Fatalf("ok=%v, err=%v", tt.ok, err)
			}
			if err == nil && len(s.Runs[0].Ports) > 0 && s.Runs[0].Ports[0].String() != "127.0.0.1:8080" && !s.Runs[0].Ports[0].Free() {
				t.Errorf("port %v", s.Runs[0].Ports[0])
			}
		})
	}
}

func TestIDsStableAndUnique(t *testing.T) {
	src := "name: x\nworkload: http\nimpls: [\"a b\", \"a/b\"]\nparams: {url: [\"http://h/a?b\", \"http://h/a&b\"]}\nrepeats: 2\n"
	s1, err := Parse("t.yaml", []byte(src), testKnown())
	if err != nil {
		t.Fatal(err)
	}
	s2, _ := Parse("t.yaml", []byte(src), testKnown())
	seen := map[string]bool{}
	for i, r := range s1.Runs {
		if seen[r.ID] {
			t.Errorf("duplicate ID %s", r.ID)
		}
		seen[r.ID] = true
		if r.ID != s2.Runs[i].ID {
			t.Errorf("ID not stable: %s vs %s", r.ID, s2.Runs[i].ID)
		}
		if strings.ContainsAny(r.ID, "/ ?&") {
			t.Errorf("ID %q is not a safe file name", r.ID)
		}
	}
}

func TestSeedPhases(t *testing.T) {
	src := "name: x\nworkload: bus\nimpls: [go-bus]\nparams: {n: 10}\nrepeats: 1\n" +
		"seed: {rows: [{label: M, impl: go-bus, throughput: 670, phases: {fill: 5900, events: 2450}}]}\n"
	s, err := Parse("t.yaml", []byte(src), testKnown())
	if err != nil {
		t.Fatal(err)
	}
	if p := s.Runs[0].Seed.Phases; p["fill"] != 5900 || p["events"] != 2450 || len(p) != 2 {
		t.Fatalf("seed phases = %v", p)
	}
	for _, bad := range []struct{ src, want string }{
		{"name: x\nworkload: bus\nimpls: [go-bus]\nparams: {n: 10}\nseed: {rows: [{label: M, impl: go-bus, throughput: 1, phases: {fil: 1}}]}\n",
			`unknown phase "fil"; did you mean "fill"?`},
		{"name: x\nworkload: hello\nimpls: [go-hello]\nseed: {rows: [{label: M, impl: go-hello, throughput: 1, phases: {fill: 1}}]}\n",
			"this workload has no phases"},
	} {
		if _, err := Parse("t.yaml", []byte(bad.src), testKnown()); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("error lacks %q: %v", bad.want, err)
		}
	}
}

func TestCPUs(t *testing.T) {
	src := "name: x\nworkload: hello\nimpls: [go-hello]\nrepeats: 1\ncpus: {generator: \"0\", sut: \"0\"}\n"
	s, err := Parse("t.yaml", []byte(src), testKnown())
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Runs[0].CPUs; c.Generator.String() != "0" || c.SUT.String() != "0" {
		t.Fatalf("run's CPUs = %q, %q; want 0, 0", c.Generator, c.SUT)
	}
}

func TestLoadFile(t *testing.T) {
	if _, err := Load(filepath.Join(t.TempDir(), "missing.yaml"), testKnown()); err == nil || errors.Is(err, ErrInvalid) {
		t.Errorf("missing file: %v", err)
	}
	p := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(p, make([]byte, MaxFileSize+10), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(p, testKnown()); !errors.Is(err, ErrInvalid) {
		t.Errorf("oversized file: %v", err)
	}
}

func TestPeer(t *testing.T) {
	src := "name: x\nworkload: hello\nimpls: [go-hello, node-hello]\nparams: {load: [closed, open], connections: [10, 20]}\nrepeats: 2\n"
	s, err := Parse("t.yaml", []byte(src), testKnown())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range s.Runs {
		if r.Params["load"] != "open" {
			continue
		}
		p, ok := s.Peer(r, "load", "closed")
		if !ok || p.Index >= r.Index || p.Impl != r.Impl || p.Repeat != r.Repeat ||
			p.Params["connections"] != r.Params["connections"] || p.Params["load"] != "closed" {
			t.Errorf("peer of %s: %s (%v)", r.ID, p.ID, ok)
		}
	}
	if _, ok := s.Peer(s.Runs[0], "load", "sideways"); ok {
		t.Error("found a peer that does not exist")
	}
}

// TestFullSizes: a scenario's full: block is checked by key always, and applied only with
// Known.Full: its params override the scenario's one by one, its repeats and duration replace.
func TestFullSizes(t *testing.T) {
	src := "name: x\nworkload: hello\nimpls: [go-hello]\nparams: {connections: 10, load: closed}\nrepeats: 2\nduration: 2s\n" +
		"full: {params: {connections: 100}, repeats: 3, duration: 30s}\n"
	short, err := Parse("t.yaml", []byte(src), testKnown())
	if err != nil {
		t.Fatal(err)
	}
	k := testKnown()
	k.Full = true
	full, err := Parse("t.yaml", []byte(src), k)
	if err != nil {
		t.Fatal(err)
	}
	r, f := short.Runs[0], full.Runs[0]
	if len(short.Runs) != 2 || r.Duration != 2*time.Second || r.Params["connections"] != int64(10) {
		t.Errorf("short: %d runs, %v, %v", len(short.Runs), r.Duration, r.Params)
	}
	if len(full.Runs) != 3 || f.Duration != 30*time.Second || f.Params["connections"] != int64(100) || f.Params["load"] != "closed" {
		t.Errorf("full: %d runs, %v, %v", len(full.Runs), f.Duration, f.Params)
	}
	bad := "name: x\nworkload: hello\nimpls: [go-hello]\nfull: {seed: [a], repeats: 3}\n"
	if _, err := Parse("t.yaml", []byte(bad), testKnown()); err == nil || !strings.Contains(err.Error(), `unknown full key "seed"`) {
		t.Errorf("full with seed: %v", err)
	}
	more := "name: x\nworkload: hello\nimpls: [go-hello]\nparams: {load: closed}\nrepeats: 1\nfull: {impls: [go-hello, node-hello]}\n"
	if s, err := Parse("t.yaml", []byte(more), k); err != nil || len(s.Runs) != 2 || s.Runs[1].Impl != "node-hello" {
		t.Errorf("full impls: %v", err)
	}
}

// TestSeedTable: a scenario's seed rows attach to the runs they match (impl and params), and
// each row is checked: one of the scenario's impls, known parameters, typed figures.
func TestSeedTable(t *testing.T) {
	src := "name: x\nworkload: hello\nimpls: [go-hello, node-hello]\nparams: {load: [closed, open]}\n" +
		"seed: {source: repo, rows: [{label: Node, impl: node-hello, params: {load: closed}, throughput: 13874, p50: 6.99ms, p99: 9.63ms, errors: none}]}\n"
	s, err := Parse("t.yaml", []byte(src), testKnown())
	if err != nil {
		t.Fatal(err)
	}
	with := 0
	for _, r := range s.Runs {
		if r.Seed == nil {
			continue
		}
		with++
		if r.Impl != "node-hello" || r.Params["load"] != "closed" || r.Seed.Throughput != 13874 || r.Seed.P99 != 9630*time.Microsecond || r.Seed.Source != "repo" {
			t.Errorf("run %s got seed %+v", r.ID, r.Seed)
		}
	}
	if with != s.Scenarios[0].Repeats {
		t.Errorf("%d runs carry the seed's row; want the %d repeats of node-hello closed", with, s.Scenarios[0].Repeats)
	}
	bad := "name: x\nworkload: hello\nimpls: [go-hello]\n" +
		"seed: {rows: [{label: A, impl: aerys, throughput: fast}, {impl: go-hello, params: {colour: red}}]}\n"
	_, err = Parse("t.yaml", []byte(bad), testKnown())
	for _, want := range []string{`seed row impl "aerys" is not one of the scenario's impls`, "throughput: want a number",
		"seed row has no label", `unknown parameter "colour"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
}

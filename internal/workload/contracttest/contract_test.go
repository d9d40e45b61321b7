package contracttest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/report"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/suite"
	"github.com/iobench/iobench/internal/workload"
	"github.com/iobench/iobench/internal/workload/workloadtest"
)

// TestMain lets the test binary stand in for iobench when a run starts go-toy's
// `iobench serve toy`: the suite and the toy command get this executable as the iobench that
// start.command names, and workloadtest runs the registered serve command in it.
func TestMain(m *testing.M) {
	workloadtest.ServeMain()
	os.Exit(m.Run())
}

const implsRoot = "testdata/impls"

// TestManifestSection: the toy section of an impl.yaml is read typed, its keys, types and rule
// checked strictly with the field (and the line) named, and `iobench impls` shows its help.
func TestManifestSection(t *testing.T) {
	m, err := impl.Load(filepath.Join(implsRoot, "go", "toy"))
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := impl.SectionOf[manifest](m, name); !ok || s.Reply != "pong" || !s.Counts {
		t.Fatalf("go-toy's section %+v, %v", s, ok)
	}
	_, err = impl.Parse([]byte(`name: go-bad
language: go
variants: [{name: sync, mode: sync}]
start: {command: [iobench, serve, toy]}
ready: {tcp: listen}
workloads:
  toy:
    reply: two words
    counts: loud
    volume: 11
`), "")
	for _, want := range []string{
		`workloads.toy.reply: "two words" is not one word (give the word the impl answers, e.g. pong)`,
		"line 9: cannot unmarshal !!str `loud` into bool",
		"workloads.toy.volume: unknown key (known keys here: counts, reply)",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	if got := impl.SectionHelp(name); got != "{reply: WORD, counts: BOOL}" {
		t.Errorf("help %q", got)
	}
}

// TestRecordSection: the toy section is written under its own key beside the record's fields
// and read back typed; the check (Verified) reads it.
func TestRecordSection(t *testing.T) {
	rec := &result.Record{SchemaVersion: result.SchemaVersion, Workload: name, Parameters: map[string]any{},
		Counts: result.Counts{Attempted: 3, Succeeded: 3}}
	rec.SetSection(name, &section{Reply: "pong", Answered: 3, Counted: 2, Counts: true})
	var b bytes.Buffer
	if err := result.Write(&b, rec); err != nil {
		t.Fatal(err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := json.Compact(&got, raw[name]); err != nil || got.String() != `{"reply":"pong","answered":3,"counted":2,"counts":true}` {
		t.Fatalf(`"toy": %s (%v)`, raw[name], err)
	}
	path := filepath.Join(t.TempDir(), "toy.json")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := result.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if s := sectionOf(back); s == nil || *s != *sectionOf(rec) {
		t.Fatalf("read back %+v", s)
	}
	if v := workload.Verification(back); v.OK || v.Why != "the impl counted 2 pings of 3 answered" {
		t.Fatalf("verification %+v", v)
	}
}

// TestServeCommand runs `iobench serve toy` as a run starts it, a child of this executable:
// it listens where it says, answers with --reply and counts, and stops on SIGTERM.
func TestServeCommand(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "serve", "toy", "--listen", "127.0.0.1:0", "--reply", "hi")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "iobench toy: listening on ")
	if err != nil || !ok {
		cmd.Process.Kill()
		t.Fatalf("first line %q, %v", line, err)
	}
	s, err := ping(t.Context(), addr, 3, manifest{Reply: "hi", Counts: true})
	if err != nil || s.Answered != 3 || s.Counted != 3 {
		t.Errorf("pings: %+v, %v", s, err)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("after SIGTERM: %v", err)
	}
	if code, _, stderr := workloadtest.Run("serve", "toy", "--bogus"); code != 2 || !strings.Contains(stderr, "unknown flag: --bogus; see 'iobench serve toy --help'") {
		t.Errorf("serve toy --bogus: exit %d, %q", code, stderr)
	}
}

// TestOwnCommand runs `iobench toy`: one run of go-toy installed from its manifest, its text
// block on stdout and its record with the section in --json; bad input is exit 2.
func TestOwnCommand(t *testing.T) {
	path := filepath.Join(t.TempDir(), "toy.json")
	base := []string{"toy", "--impl", "go-toy", "--impls-dir", implsRoot, "--state-dir", t.TempDir(), "--quiet"}
	code, stdout, stderr := workloadtest.Run(append(base, "-n", "30", "--json", path)...)
	if code != 0 || !strings.HasPrefix(stdout, `go-toy: 30 pings answered "pong" in `) || !strings.Contains(stdout, "counted 30\n") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	rec, err := result.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if s := sectionOf(rec); s == nil || s.Counted != 30 || rec.Verification == nil || !rec.Verification.OK || rec.Impl != "go-toy" {
		t.Fatalf("record %+v, section %+v", rec, s)
	}
	for _, args := range [][]string{append(base, "-n", "0"), {"toy", "--impl", "go-nosuch", "--impls-dir", implsRoot}} {
		if code, _, stderr := workloadtest.Run(args...); code != 2 || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line", args, code, stderr)
		}
	}
}

// TestEndToEnd runs a scenario file of the toy workload through the suite, go-toy started from
// its manifest, then the report on the records written and read back: every run verified, the
// text blocks, and the toy's table in the terminal summary, summary.md and report.html.
func TestEndToEnd(t *testing.T) {
	known, err := suite.Known(implsRoot)
	if err != nil {
		t.Fatal(err)
	}
	s, err := scenario.Load("testdata/toy.yaml", known)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	opts := suite.Options{Binary: exe, Impls: implsRoot, StateDir: t.TempDir(), Command: []string{"contracttest.test"}}
	var recs []*result.Record
	for _, o := range suite.Run(t.Context(), s, opts) {
		rec, sec := o.Record, sectionOf(o.Record)
		if o.Err != nil || sec == nil || !rec.Verification.OK || sec.Answered != o.Run.Params["pings"] || sec.Counted != sec.Answered {
			t.Fatalf("%s: %v, record %+v, section %+v", o.Run.ID, o.Err, rec, sec)
		}
		if len(rec.Processes) != 1 || rec.Processes[0].Role != "sut" || rec.Processes[0].PeakRSS == 0 {
			t.Errorf("%s: processes %+v; want go-toy's cost", o.Run.ID, rec.Processes)
		}
		path := filepath.Join(dir, o.Run.ID+".json")
		if err := result.Save(path, rec, nil); err != nil {
			t.Fatal(err)
		}
		back, err := result.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, back)
	}
	if len(recs) != 4 {
		t.Fatalf("%d records; want 2 sizes × 2 repeats", len(recs))
	}
	var text bytes.Buffer
	if ok, err := workload.Text(&text, recs[0]); !ok || err != nil || !strings.Contains(text.String(), `pings answered "pong"`) {
		t.Errorf("text block %q, %v, %v", text.String(), ok, err)
	}
	if err := report.SummaryText(&text, recs); err != nil {
		t.Fatal(err)
	}
	files, err := report.WriteFiles(dir, recs, report.HTMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(files.Markdown)
	page, _ := os.ReadFile(files.HTML)
	for where, want := range map[string][]string{
		text.String(): {"Pings answered and counted (toy)", "go-toy  n50    pong   100       100", "go-toy  n200   pong   400       400"},
		string(md):    {"## Pings answered and counted (toy)", "| go-toy | n50 | pong | 100 | 100 |", "| go-toy | n200 | pong | 400 | 400 |"},
		string(page):  {`id="toy-counts"`, "Pings answered and counted (toy)", "<td>n200</td>"},
	} {
		for _, w := range want {
			if !strings.Contains(where, w) {
				t.Errorf("report lacks %q:\n%s", w, where)
			}
		}
	}
}

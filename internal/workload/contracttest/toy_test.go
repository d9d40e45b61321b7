// Package contracttest is the workload contract's test: a toy workload defined in this package
// alone, with each part a workload owns (a manifest section, a record section, a report table,
// a text block, its own check, its own command and the `iobench serve` command of its Go system
// under test), run end to end through the suite and the report. No file outside this package
// names it; docs/ARCHITECTURE.md ("Add a workload") walks through it file by file.
//
// The toy workload sends pings, one line each, to an impl that answers each with the word its
// manifest declares, and asks it at the end how many pings it counted.
package contracttest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/env"
	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/sut"
	"github.com/iobench/iobench/internal/workload"
)

// name is the toy workload's id: in scenarios (workload: toy), manifests (workloads: toy:),
// records (workload and the section's key) and commands (iobench toy, iobench serve toy).
const name = "toy"

func init() {
	workload.Register(workload.Workload{
		Name: name,
		Spec: scenario.WorkloadSpec{Params: map[string]scenario.ParamSpec{
			"pings": {Type: scenario.Int, Check: scenario.Positive, Default: int64(100), Doc: "pings to send, one after the other"},
		}},
		Manifest: impl.NewSection("{reply: WORD, counts: BOOL}", checkManifest),
		Run:      run,
		Text:     text,
		Verified: verified,
		Tables:   []workload.TableFunc{countTable},
		Command:  newCommand,
		Serve:    []func() *cobra.Command{newServeCommand},
	})
	result.RegisterSection(name, func() any { return new(section) })
}

// manifest is the toy section of an impl's impl.yaml (workloads: toy:); its yaml tags are the
// only keys it takes.
type manifest struct {
	Reply  string `yaml:"reply"`  // the word the impl answers to every ping
	Counts bool   `yaml:"counts"` // the impl answers "count" with the pings it served
}

// checkManifest is the toy section's own rule, beside the keys and types: one word to answer.
func checkManifest(_ *impl.Manifest, field string, m *manifest, add impl.ProblemFunc) {
	if m.Reply == "" || strings.ContainsAny(m.Reply, " \t\n") {
		add(field+".reply", fmt.Sprintf("%q is not one word", m.Reply), "give the word the impl answers, e.g. pong")
	}
}

// section is the toy section of a record, under the JSON key "toy".
type section struct {
	Reply    string `json:"reply"`             // the word the manifest declares
	Answered int64  `json:"answered"`          // pings answered with it
	Counted  int64  `json:"counted,omitempty"` // pings the impl says it served; 0 when it does not count
	Counts   bool   `json:"counts"`            // the impl counts (its manifest's counts)
}

// sectionOf returns rec's toy section, nil when it has none.
func sectionOf(rec *result.Record) *section { return result.SectionOf[section](rec, name) }

// run starts the run's impl from its manifest, sends the pings and asks for the count.
func run(ctx context.Context, e *workload.Env, r scenario.Run) (*result.Record, error) {
	t, err := e.Target(ctx, r)
	if err != nil {
		return nil, err
	}
	m, _ := impl.SectionOf[manifest](t.Inst.Manifest, name)
	addr, err := sut.FreeAddr()
	if err != nil {
		return nil, err
	}
	p, err := t.Inst.Start(ctx, impl.StartOptions{Variant: t.Variant.Name, Env: map[string]string{env.Listen: addr}})
	if err != nil {
		return nil, err
	}
	defer p.Stop()
	n, _ := r.Params["pings"].(int64)
	start := time.Now()
	s, err := ping(ctx, addr, n, *m)
	took := time.Since(start)
	rec := &result.Record{SchemaVersion: result.SchemaVersion, Workload: name, Parameters: map[string]any{"pings": n},
		Command: e.Command, Environment: result.CaptureEnvironment(), StartedAt: start, Duration: result.Duration(took),
		Counts:     result.Counts{Attempted: n, Succeeded: s.Answered, Failed: n - s.Answered},
		Throughput: result.Throughput{Unit: "pings/s", Mean: float64(s.Answered) / took.Seconds()},
		Processes:  []result.Process{result.NewProcess(t.Name(), "sut", p.PID(), p.Usage(), took)}}
	t.Label(rec)
	rec.Case = fmt.Sprintf("n%d", n) // the report groups the repeats of each size apart
	rec.SetSection(name, s)
	return rec, err
}

// ping sends n pings to addr on one connection, then "count" when the impl counts.
func ping(ctx context.Context, addr string, n int64, m manifest) (*section, error) {
	s := &section{Reply: m.Reply, Counts: m.Counts}
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return s, err
	}
	defer conn.Close()
	rd := bufio.NewReader(conn)
	for range n {
		if got, err := ask(conn, rd, "ping"); err != nil || got != m.Reply {
			return s, fmt.Errorf("ping %d: answered %q (%v), want %q", s.Answered+1, got, err, m.Reply)
		}
		s.Answered++
	}
	if m.Counts {
		got, err := ask(conn, rd, "count")
		if s.Counted, err = strconv.ParseInt(got, 10, 64); err != nil {
			return s, fmt.Errorf("count: %w", err)
		}
	}
	return s, nil
}

// ask writes line and reads the one-line answer.
func ask(w io.Writer, rd *bufio.Reader, line string) (string, error) {
	if _, err := io.WriteString(w, line+"\n"); err != nil {
		return "", err
	}
	got, err := rd.ReadString('\n')
	return strings.TrimSuffix(got, "\n"), err
}

// verified is the toy check of a record (workload.Workload.Verified): an impl that counts
// counted every ping answered.
func verified(rec *result.Record) (bool, string) {
	switch s := sectionOf(rec); {
	case s == nil:
		return false, "the record has no toy section"
	case s.Counts && s.Counted != s.Answered:
		return false, fmt.Sprintf("the impl counted %d pings of %d answered", s.Counted, s.Answered)
	}
	return true, ""
}

// text writes a toy record's text block.
func text(w io.Writer, rec *result.Record) error {
	s := sectionOf(rec)
	if s == nil {
		return nil
	}
	_, err := fmt.Fprintf(w, "%s: %d pings answered %q in %v, counted %s\n", rec.Impl, s.Answered, s.Reply, rec.Duration.Std(), counted(s))
	return err
}

// counted is what the impl counted, in words.
func counted(s *section) string {
	if !s.Counts {
		return "not"
	}
	return strconv.FormatInt(s.Counted, 10)
}

// countTable is the toy runs' table in the report (workload.Workload.Tables): a row per group,
// what its impl answered and counted, summed over the repeats.
func countTable(groups []workload.TableGroup) workload.Table {
	t := workload.Table{ID: "toy-counts", Title: "Pings answered and counted (toy)",
		Note: "Summed over the repeats; counted is the impl's own count, asked after the last ping.",
		Head: []string{"impl", "pings", "reply", "answered", "counted"}, Num: []bool{false, false, false, true, true}}
	for _, g := range groups {
		var answered, counted int64
		var reply string
		for _, rec := range g.Records {
			if s := sectionOf(rec); s != nil {
				answered, counted, reply = answered+s.Answered, counted+s.Counted, s.Reply
			}
		}
		if reply != "" {
			t.Rows = append(t.Rows, []string{g.Label, g.Load, reply, strconv.FormatInt(answered, 10), strconv.FormatInt(counted, 10)})
		}
	}
	return t
}

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/agent"
	"github.com/iobench/iobench/internal/k8sjob"
	"github.com/iobench/iobench/internal/k8sjob/k8sapi"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/stats"
	"github.com/iobench/iobench/internal/workload/hello/hellotest"
)

// runAgents runs n agents of one open-loop run against url as processes of the test binary (as
// iobench http --agent I/N) and returns their record files.
func runAgents(t *testing.T, url string, n int) []string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	start := fmt.Sprintf("@%.3f", float64(time.Now().Add(1500*time.Millisecond).UnixMilli())/1000)
	dir := t.TempDir()
	files := make([]string, n)
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		files[i] = filepath.Join(dir, fmt.Sprintf("agent-%d.json", i))
		cmd := exec.Command(self, "http", "-R", "600", "-c", "6", "-d", "1s", "--quiet", "--agent", fmt.Sprintf("%d/%d", i, n),
			"--start-at", start, "--json", files[i], url)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if out, err := cmd.CombinedOutput(); err != nil {
				errs[i] = fmt.Errorf("agent %d: %v\n%s", i, err, out)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// TestMergeRealRun merges the records of two agents that loaded the hello server together: the
// merged histogram is the sum of theirs, percentile for percentile, and each merged percentile
// lies between the agents' (as a mixture's must); compare --fail-if judges the merged record.
func TestMergeRealRun(t *testing.T) {
	url := hellotest.URL(t)
	files := runAgents(t, url, 2)
	merged := filepath.Join(t.TempDir(), "merged.json")
	code, out, errs := runCLI(append([]string{"merge", "--json", merged}, files...)...)
	if code != 0 || !strings.Contains(out, "Merged from 2 agents") {
		t.Fatalf("merge: exit %d, stderr %s\n%s", code, errs, out)
	}
	rec, err := result.Load(merged)
	if err != nil {
		t.Fatal(err)
	}
	one := stats.NewHistogram()
	var parts []*stats.Histogram
	var succeeded int64
	for _, f := range files {
		a, err := result.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		if a.Agent == nil || a.Agent.Run == "" || a.Agent.Started.IsZero() || len(a.Series) == 0 || a.Series[0].At == 0 {
			t.Fatalf("%s: agent %+v, series %+v: want the agent, its run, its start and a wall-clock series", f, a.Agent, a.Series)
		}
		h, err := stats.Decode(a.Latency)
		if err != nil {
			t.Fatal(err)
		}
		one.Merge(h)
		parts = append(parts, h)
		succeeded += a.Counts.Succeeded
	}
	got, err := stats.Decode(rec.Latency)
	if err != nil {
		t.Fatal(err)
	}
	if got.Count() != one.Count() || rec.Counts.Succeeded != succeeded || succeeded < 500 {
		t.Fatalf("merged %d samples and %d successes; the agents %d and %d", got.Count(), rec.Counts.Succeeded, one.Count(), succeeded)
	}
	// A mixture's quantile lies between its parts' at the same p, but each histogram rounds
	// p x count to a whole sample, which can move the merged one a sample past both parts: so
	// the bounds are the parts' quantiles a percentile either side (each agent has > 100 samples).
	for p := 1.0; p <= 100; p++ {
		v := got.Quantile(p)
		below, above := max(p-1, 0), min(p+1, 100)
		lo, hi := min(parts[0].Quantile(below), parts[1].Quantile(below)), max(parts[0].Quantile(above), parts[1].Quantile(above))
		if v != one.Quantile(p) || v < lo || v > hi {
			t.Fatalf("p%g: merged %v, in one place %v, agents %v..%v", p, v, one.Quantile(p), lo, hi)
		}
	}
	base := halved(t, rec)
	if code, _, errs := runCLI("compare", "--allow-few", "--fail-if", "throughput<-99%", base, merged); code != 0 {
		t.Errorf("compare within the limit: exit %d, %s", code, errs)
	}
	if code, _, errs := runCLI("compare", "--allow-few", "--fail-if", "throughput>+10%", base, merged); code != 1 || !strings.Contains(errs, "limit(s) crossed") {
		t.Errorf("compare of the whole against half its rate, throughput>+10%%: exit %d, %s; want 1", code, errs)
	}
	if code, _, errs := runCLI("compare", "--allow-few", "--fail-if", "throughput>+10%", files[0], merged); code != 3 || !strings.Contains(errs, "setups differ") {
		t.Errorf("compare of one agent against the whole: exit %d, %s; want 3, two setups not judged", code, errs)
	}
	collectRecords(t, files, base)
}

// halved writes a copy of rec, the same setup at half its throughput, as a base to compare with.
func halved(t *testing.T, rec *result.Record) string {
	t.Helper()
	cp := *rec
	cp.Throughput.Mean /= 2
	path := filepath.Join(t.TempDir(), "base.json")
	if err := result.Save(path, &cp, io.Discard); err != nil {
		t.Fatal(err)
	}
	return path
}

// collectRecords runs iobench collect and posts the agents' records to it out of order, one twice:
// the duplicate is refused, and --fail-if against base is judged on the merged whole.
func collectRecords(t *testing.T, files []string, base string) {
	addr := strings.TrimPrefix(closedPort(t), "http://")
	done := make(chan string)
	go func() {
		code, _, errs := runCLI("collect", "--agents", "2", "--listen", strings.TrimSuffix(addr, "/"), "--timeout", "20s",
			"--base", base, "--allow-few", "--fail-if", "throughput>+10%")
		done <- fmt.Sprintf("%d %s", code, errs)
	}()
	url := "http://" + addr + "records"
	send := func(f string) error {
		rec, err := result.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		var last error
		for try := 0; try < 50; try++ { // until the collector listens
			if last = agent.Send(context.Background(), url, rec, 2*time.Second); last == nil || !strings.Contains(last.Error(), "cannot reach") {
				return last
			}
			time.Sleep(100 * time.Millisecond)
		}
		return last
	}
	if err := send(files[1]); err != nil {
		t.Fatal(err)
	}
	if err := send(files[1]); err == nil || !strings.Contains(err.Error(), "already in") {
		t.Fatalf("duplicate: %v", err)
	}
	if err := send(files[0]); err != nil {
		t.Fatal(err)
	}
	got := <-done
	if !strings.HasPrefix(got, "1 ") || !strings.Contains(got, "limit(s) crossed") || !strings.Contains(got, "refused") {
		t.Fatalf("collect: %s; want exit 1, the refusal logged and the limit crossed", got)
	}
}

// TestAgentsLocal runs the whole path on loopback: two agent processes, the collector, the merge.
func TestAgentsLocal(t *testing.T) {
	url := hellotest.URL(t)
	path := filepath.Join(t.TempDir(), "merged.json")
	code, out, errs := runCLI("http", "--agents-local", "2", "-R", "400", "-c", "4", "-d", "1s", "--json", path, url)
	if code != 0 || !strings.Contains(out, "Merged from 2 agents") {
		t.Fatalf("exit %d, stderr %s\n%s", code, errs, out)
	}
	rec, err := result.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Merged == nil || len(rec.Merged.Agents) != 2 || rec.Parameters["connections"] != 4.0 || rec.Throughput.TargetRate != 400 {
		t.Fatalf("merged %+v, parameters %v, target %v", rec.Merged, rec.Parameters, rec.Throughput.TargetRate)
	}
	if rec.Merged.Spread > 500 {
		t.Errorf("agents began %.1f ms apart; --start-at should hold them together", rec.Merged.Spread)
	}
}

func TestMergeBadInput(t *testing.T) {
	plain := copyRecords(t, "hello-closed-1.json")
	if code, _, errs := runCLI("merge", plain); code != 2 || !strings.Contains(errs, "no agent section") {
		t.Errorf("merge of a plain record: exit %d, %q", code, errs)
	}
	if code, _, errs := runCLI("merge"); code != 2 || !strings.Contains(errs, "record files") {
		t.Errorf("merge of nothing: exit %d, %q", code, errs)
	}
	for _, args := range [][]string{
		{"http", "--agent", "2/2", "http://127.0.0.1:1/"},
		{"http", "--agent", "0/2", "http://127.0.0.1:1/"},
		{"http", "--agents-local", "2", "--agent", "0/2", "http://127.0.0.1:1/"},
		{"http", "-c", "1", "--agent", "0/2", "--start-at", "+10s", "http://127.0.0.1:1/"},
		{"http", "--start-at", "yesterday", "http://127.0.0.1:1/"},
		{"collect", "--agents", "0"},
	} {
		if code, _, errs := runCLI(args...); code != 2 || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%q: exit %d, %q; want exit 2 and one line", args, code, errs)
		}
	}
}

// TestK8sJob writes the manifests of 8 agents and decodes them strictly into k8s.io/api types.
func TestK8sJob(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := runCLI("k8s", "job", "-c", "100", "-R", "40000", "-d", "10s", "-H", "X-Run: 1", "http://svc.default/",
		"--agents", "8", "--out", dir, "--start-at", "2030-01-01T00:00:00Z")
	if code != 0 || !strings.Contains(out, "kubectl apply") {
		t.Fatalf("exit %d, stderr %s\n%s", code, errs, out)
	}
	y, err := os.ReadFile(filepath.Join(dir, k8sjob.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	m, err := k8sapi.Decode(y)
	if err != nil {
		t.Fatalf("strict decode: %v", err)
	}
	if *m.Jobs[k8sjob.AgentsName].Spec.Completions != 8 || *m.Jobs[k8sjob.AgentsName].Spec.Parallelism != 8 || m.Base != nil {
		t.Fatalf("agents Job %+v", m.Jobs[k8sjob.AgentsName])
	}
	args := strings.Join(m.Jobs[k8sjob.AgentsName].Spec.Template.Spec.Containers[0].Args, " ")
	for _, want := range []string{"--connections=100", "--rate=40000", "--header=X-Run: 1", "--start-at 2030-01-01T00:00:00Z", "--agent $(JOB_COMPLETION_INDEX)/8"} {
		if !strings.Contains(args, want) {
			t.Errorf("agent args %q lack %q", args, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, k8sjob.DockerfileFile)); err != nil {
		t.Error(err)
	}
	if code, _, errs := runCLI("k8s", "job", "-c", "4", "http://svc/", "--agents", "8", "--out", dir); code != 2 || !strings.Contains(errs, "each agent needs a connection") {
		t.Errorf("-c 4 over 8 agents: exit %d, %q", code, errs)
	}
}

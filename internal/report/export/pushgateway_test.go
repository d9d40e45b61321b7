package export_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/iobench/iobench/internal/report/export"
)

// pushgateway starts Prometheus's Pushgateway on a free port of 127.0.0.1 until the test ends and
// returns its URL; it fails naming the package when the Pushgateway is not installed.
func pushgateway(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("prometheus-pushgateway")
	if err != nil {
		t.Fatal("prometheus-pushgateway not found: install it with 'apt-get install -y prometheus-pushgateway' " +
			"(make test does, through scripts/install-services.sh --with-test-tools)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--web.listen-address="+addr,
		"--persistence.file="+filepath.Join(t.TempDir(), "pushgateway.data"), "--log.level=warn")
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	url := "http://" + addr
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(url + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return url
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Pushgateway on %s did not get ready in 10 s: %s", addr, logs.String())
		}
	}
}

// TestOpenMetricsPushedToAPushgateway pushes a live run's exposition to a real Pushgateway, as the
// README shows with curl, and reads back what it serves to Prometheus.
func TestOpenMetricsPushedToAPushgateway(t *testing.T) {
	rec, url := liveRecord(t), pushgateway(t)
	body := exportOpenMetrics(t, export.Run{Name: "live", Record: rec})
	req, err := http.NewRequest(http.MethodPut, url+"/metrics/job/iobench", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/openmetrics-text; version=1.0.0; charset=utf-8")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusAccepted {
		t.Fatalf("push: %s: %s", resp.Status, msg)
	}
	resp, err = http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("the Pushgateway's /metrics: %v", err)
	}
	for name, want := range map[string]float64{
		"iobench_operations_succeeded_total": float64(rec.Counts.Succeeded),
		"iobench_latency_seconds_count":      float64(rec.Latency.Count), // the summary's count, below
		"iobench_throughput_per_second":      rec.Throughput.Mean,
	} {
		got, labels := servedValue(fams, name)
		if got != want || labels["job"] != "iobench" || labels["run"] != "live" || labels["load_model"] != "open" {
			t.Errorf("%s served as %v %v; pushed %v with run=live", name, got, labels, want)
		}
	}
}

// servedValue finds the value and labels of the first sample called name, in a family of that
// name or, for a summary's _count, in its summary.
func servedValue(fams map[string]*dto.MetricFamily, name string) (float64, map[string]string) {
	if f, ok := fams[name]; ok && len(f.Metric) > 0 {
		m := f.Metric[0]
		return m.GetUntyped().GetValue() + m.GetGauge().GetValue() + m.GetCounter().GetValue(), labelMap(m)
	}
	base := name[:len(name)-len("_count")]
	if f, ok := fams[base]; ok && len(f.Metric) > 0 {
		m := f.Metric[0]
		return float64(m.GetSummary().GetSampleCount()), labelMap(m)
	}
	return 0, nil
}

func labelMap(m *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, l := range m.Label {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

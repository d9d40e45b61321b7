package report

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/result"
)

// hostileRecord carries markup and script in every string a record gets from outside.
func hostileRecord() *result.Record {
	r := crafted("http", `<script>alert("impl")</script>`, "sync", "closed", 1234, 5000, 30)
	r.Target = `http://127.0.0.1:1/"><img src=x onerror=alert(1)>`
	r.Command = []string{"iobench", "http", `--header=X: </script><img src=x onerror=alert(2)>`}
	r.Warnings = []string{`</script><img src=x onerror=alert(3)>`, "it's \u2028 fine"}
	r.Parameters = map[string]any{"url": `javascript:alert(4)`}
	r.Environment.Hostname = `<b>host</b>`
	r.Series = []result.Point{{Second: 1, Span: 1, Completed: 1200, Errors: 3}, {Second: 2, Span: 0.5, Completed: 600}}
	return r
}

func renderHTML(t *testing.T, recs []*result.Record) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := HTML(&b, recs, HTMLOptions{Title: "iobench <test>", Source: "testdata/records",
		Generated: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestHTMLEscapesAndIsSelfContained(t *testing.T) {
	page := string(renderHTML(t, append(loadRecords(t), hostileRecord())))
	for _, bad := range []string{`<script>alert`, `<img`, `<b>host`, `iobench <test>`, "<link", "<iframe", "@import", "url("} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	for _, want := range []string{`&lt;b&gt;host&lt;/b&gt;`, `Content-Security-Policy`, "Chart.js " + ChartJSVersion,
		"MIT License", `window.IOBENCH_DATA = {`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if n := strings.Count(page, "</script>"); n != 3 {
		t.Errorf("%d </script> tags, want 3 (the error catcher, Chart.js, the data and drawing code)", n)
	}
	if regexp.MustCompile(`<script[^>]*\ssrc=`).MatchString(page) {
		t.Error("a script is loaded from elsewhere")
	}
	_, data, _ := strings.Cut(page, "window.IOBENCH_DATA = ")
	data, _, _ = strings.Cut(data, "\n")
	if strings.ContainsAny(data, "<>\u2028") {
		t.Errorf("the chart data is not escaped for a script: %.300s", data)
	}
}

func TestShellQuote(t *testing.T) {
	got := ShellQuote([]string{"iobench", "http", "-H", "X-A: b", "it's", "", "http://127.0.0.1:8080/?a=1"})
	want := `iobench http -H 'X-A: b' 'it'\''s' '' 'http://127.0.0.1:8080/?a=1'`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestSpectrumPoints(t *testing.T) {
	l := &result.Latency{Count: 1000, Min: 5, Max: 900,
		Percentiles: []result.Percentile{{P: 50, Value: 10}, {P: 90, Value: 20}, {P: 99, Value: 80}, {P: 100, Value: 900}}}
	got := spectrum(l)
	want := [][2]float64{{1, 5}, {2, 10}, {10, 20}, {100, 80}, {1000, 900}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("point %d = %v, want %v", i, got[i], want[i])
		}
	}
	// From the encoded histogram: the full spectrum, x strictly increasing, ending at the max.
	recs := loadRecords(t)
	for _, r := range recs {
		pts := spectrum(r.Latency)
		if len(pts) < 10 {
			t.Errorf("%s: %d points from the histogram", KeyOf(r), len(pts))
		}
		for i := 1; i < len(pts); i++ {
			if pts[i][0] <= pts[i-1][0] || pts[i][1] < pts[i-1][1] {
				t.Fatalf("%s: not monotonic at %d: %v %v", KeyOf(r), i, pts[i-1], pts[i])
			}
		}
		if last := pts[len(pts)-1]; last[1] < r.Latency.Max*0.99 || last[1] > r.Latency.Max*1.01 {
			t.Errorf("%s: last point %v, max %v", KeyOf(r), last, r.Latency.Max)
		}
	}
}

// chromium returns the browser the HTML test drives, or fails with what to install.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("IOBENCH_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("headless Chromium not found: install it with 'apt-get install -y chromium' (make test does), " +
		"or set IOBENCH_CHROMIUM to a Chromium or Chrome binary")
	return ""
}

// browse opens file in headless Chromium with extra flags and returns stdout and stderr.
func browse(t *testing.T, bin, file string, extra ...string) (stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
		"--user-data-dir=" + t.TempDir(), "--virtual-time-budget=10000"}, extra...)
	cmd := exec.CommandContext(ctx, bin, append(args, "file://"+file)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, errb.String())
	}
	return out.String(), errb.String()
}

var consoleLine = regexp.MustCompile(`(?m)^.*:CONSOLE[:(].*$`)

// TestHTMLInChromium loads the report of real records (and a hostile one) in headless Chromium:
// no console message, no error caught by the page, every chart drawn, nothing injected; then
// saves a screenshot (go test -artifacts keeps it).
func TestHTMLInChromium(t *testing.T) {
	bin := chromium(t)
	recs := append(loadRecords(t), hostileRecord())
	dir := t.ArtifactDir()
	file := filepath.Join(dir, "report.html")
	page := renderHTML(t, recs)
	if err := os.WriteFile(file, page, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("report: %s (%d bytes)", file, len(page))

	dom, logs := browse(t, bin, file, "--enable-logging=stderr", "--v=0", "--dump-dom")
	if m := consoleLine.FindAllString(logs, -1); len(m) > 0 {
		t.Errorf("console messages:\n%s", strings.Join(m, "\n"))
	}
	if m := regexp.MustCompile(`data-errors="([^"]*)"`).FindStringSubmatch(dom); m != nil {
		t.Errorf("the page caught errors: %s", m[1])
	}
	if !strings.Contains(dom, `data-ready="yes"`) {
		t.Fatalf("the drawing script did not finish; DOM head:\n%.2000s", dom)
	}
	groups := Aggregate(recs)
	workloads := map[string]bool{}
	for _, g := range groups {
		workloads[g.Key.Workload] = true
	}
	// bars per workload + one ratio chart + a spectrum per workload and load model + a series per run
	want := len(workloads) + 1 + len(spectra(groups, map[Key]int{}, map[*result.Record]string{})) + len(recs)
	m := regexp.MustCompile(`data-charts="(\d+)"`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatal("no data-charts attribute")
	}
	if n, _ := strconv.Atoi(m[1]); n != want {
		t.Errorf("%d charts drawn, want %d", n, want)
	}
	if n := strings.Count(dom, "<canvas"); n != want {
		t.Errorf("%d canvas elements, want %d", n, want)
	}
	if strings.Contains(dom, "<img") || strings.Contains(dom, "<b>host") {
		t.Error("markup from a record reached the DOM")
	}
	if !strings.Contains(dom, "&lt;img src=x onerror=alert(3)&gt;") {
		t.Error("the hostile warning is not shown as text")
	}

	shot := filepath.Join(dir, "report.png")
	browse(t, bin, file, "--screenshot="+shot, "--window-size=1280,2400")
	if st, err := os.Stat(shot); err != nil || st.Size() < 10000 {
		t.Fatalf("screenshot %s: %v", shot, err)
	}
	t.Logf("screenshot: %s", shot)
}

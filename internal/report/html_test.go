package report

import (
	"bytes"
	"regexp"
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

func TestHTMLShowsTLSHandshakes(t *testing.T) {
	r := crafted("http", "go-hello", "sync", "closed", 1234, 5000, 30)
	hs := &result.Latency{Count: 100, Mean: 850, Percentiles: []result.Percentile{{P: 50, Value: 800}, {P: 99, Value: 2100}}}
	r.TLS = &result.TLS{Handshakes: 100, Resumed: 7, Version: "TLS 1.3", CipherSuite: "TLS_AES_128_GCM_SHA256", Handshake: hs, Connect: hs}
	page := string(renderHTML(t, []*result.Record{r}))
	for _, want := range []string{"TLS 1.3 TLS_AES_128_GCM_SHA256: 100 handshakes (7 resumed), handshake mean 850", "not in the latency above"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if plain := string(renderHTML(t, []*result.Record{crafted("http", "go-hello", "sync", "closed", 1234, 5000, 30)})); strings.Contains(plain, "handshakes (") {
		t.Error("a run without TLS shows a TLS line")
	}
}

package report

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/iobench/iobench/internal/result"
)

// maxHTMLSize is the most a report may weigh: one file that opens anywhere and mails whole.
const maxHTMLSize = 2 << 20

// hostileText is what the hostile record puts in its impl, variant, URL and seed row: a script
// element, its end tag alone, and both kinds of quotes.
const hostileText = `<script>alert(1)</script>"'</script>`

// hostileBrowserRecord is hostileRecord with hostileText in every string the summary tables
// and the seed's table show.
func hostileBrowserRecord() *result.Record {
	r := hostileRecord()
	r.Impl, r.Variant = hostileText, `"'`+hostileText
	r.Target = "http://127.0.0.1:1/" + hostileText
	r.Seed = &result.Seed{Source: hostileText, Label: "seed " + hostileText, Throughput: 1000}
	return r
}

// browserRecords are the records the Chromium test renders: the real ones of testdata/records
// (hello and bus) and of testdata/quick (a quick suite of every workload, run on a busy 2-core
// machine on 2026-11-23), and the hostile one.
func browserRecords(t *testing.T) []*result.Record {
	recs := loadRecords(t)
	files, err := filepath.Glob(filepath.Join("testdata", "quick", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no records under testdata/quick: %v", err)
	}
	for _, f := range files {
		r, err := result.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	return append(recs, hostileBrowserRecord())
}

// chromium returns the browser the test drives, or skips the test saying what to install.
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
	t.Skip("headless Chromium not found: install it with 'scripts/install-services.sh --with-test-tools' " +
		"(apt-get install chromium; make test does), or set IOBENCH_CHROMIUM to a Chromium or Chrome binary")
	return ""
}

// browser starts headless Chromium for the test, bounded in time (about 2 s on a quiet machine,
// 20 s on a 2-core one loaded 15 times over); the test's end stops it.
func browser(t *testing.T, bin string) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	t.Cleanup(cancel)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 1600))
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(cancelBrowser)
	return bctx
}

// complaints gathers what the page must never do: write to the console, throw, log a browser
// error (a CSP violation, a failed load) or open a dialog. Dialogs are dismissed so that the
// page goes on.
type complaints struct {
	mu   sync.Mutex
	list []string
}

func (c *complaints) add(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.list = append(c.list, s)
}

func (c *complaints) all() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string{}, c.list...)
}

// listen records every complaint of the page of ctx from now on.
func (c *complaints) listen(t *testing.T, ctx context.Context) {
	err := chromedp.Listen(ctx, func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			var args []string
			for _, a := range e.Args {
				args = append(args, string(a.Value)+a.Description)
			}
			c.add("console." + string(e.Type) + ": " + strings.Join(args, " "))
		case *runtime.EventExceptionThrown:
			c.add("uncaught: " + (&chromedp.ExceptionError{ExceptionDetails: e.ExceptionDetails}).Error())
		case *log.EventEntryAdded:
			c.add("browser log " + string(e.Entry.Level) + ": " + e.Entry.Text)
		case *cdppage.EventJavascriptDialogOpening:
			c.add("dialog " + string(e.Type) + ": " + e.Message)
			go chromedp.Call(ctx, cdppage.HandleJavaScriptDialog, cdppage.HandleJavaScriptDialogParams{Accept: false})
		}
	})
	if err != nil {
		t.Fatalf("chromium did not start: %v", err)
	}
}

// pageFacts is what the page says about itself once its scripts have run.
type pageFacts struct {
	Ready, Errors  string   // data-ready, and the errors the page's own catcher saw
	Drawn          int      // the charts report.js says it drew (data-charts)
	Canvases       int      // <canvas> elements
	Instances      int      // live Chart.js instances
	Blank          []string // the captions of canvases with no painted pixel
	TOC            []string // the table of contents' targets, in order (the seeds' own after it)
	Broken         []string // in-page links (#id) whose target does not exist
	Unlisted       []string // sections (main > section[id]) the table of contents does not list
	Scripts        int      // <script> elements
	Text           string   // the page's visible text
	InjectedMarkup bool     // an <img> or <b> from a record reached the DOM
	First          string   // the id of the first section in main
	Board          []int    // the verdict board's rows, per seed
	Strips         int      // the board's rows whose strip has a painted canvas
	Folds          int      // the folds of the summary and of the runs (details.fold)
}

// Rows is the board's rows in all.
func (f pageFacts) Rows() int {
	n := 0
	for _, r := range f.Board {
		n += r
	}
	return n
}

// factsJS collects pageFacts in the page. A canvas counts as drawn when one of its pixels is
// not transparent.
const factsJS = `(() => {
  const canvases = [...document.querySelectorAll('canvas')];
  const blankCanvases = canvases.filter(c => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    for (let i = 3; i < d.length; i += 4) { if (d[i] !== 0) { return false; } }
    return true;
  });
  const blank = blankCanvases.map(c => {
    const f = c.closest('figure'), row = c.closest('.board-row');
    return f ? f.querySelector('figcaption').textContent : row ? 'board: ' + row.querySelector('.says').textContent : '(no caption)';
  });
  const toc = [...document.querySelectorAll('nav a, #seeds ol.toc a')].map(a => decodeURIComponent(a.getAttribute('href')));
  const target = h => document.getElementById(decodeURIComponent(h.slice(1)));
  return {
    ready: document.documentElement.getAttribute('data-ready') || '',
    errors: document.documentElement.getAttribute('data-errors') || '',
    drawn: Number(document.body.getAttribute('data-charts') || -1),
    canvases: canvases.length,
    instances: typeof Chart === 'undefined' ? -1 : Object.keys(Chart.instances).length,
    blank: blank,
    toc: toc,
    broken: [...document.querySelectorAll('a[href^="#"]')].map(a => a.getAttribute('href')).filter(h => !target(h)),
    unlisted: [...document.querySelectorAll('main section[id]')].map(s => '#' + s.id).filter(h => !toc.includes(h)),
    scripts: document.scripts.length,
    text: document.body.innerText,
    injectedMarkup: document.querySelector('main img, main b') !== null,
    first: (document.querySelector('main > section[id]') || {}).id || '',
    board: [...document.querySelectorAll('#board .board-seed')].map(s => s.querySelectorAll('.board-row').length),
    strips: [...document.querySelectorAll('#board .board-row .strip canvas')].filter(c => !blankCanvases.includes(c)).length,
    folds: document.querySelectorAll('main details.fold').length,
  };
})()`

// TestHTMLInChromium opens the report of real records of every workload, plus a hostile one, in
// headless Chromium (openPage checks what every page must be): the hostile strings shown as
// text, and, the records carrying no seed's verdict, no verdict board and the summary first.
func TestHTMLInChromium(t *testing.T) {
	f, _ := openPage(t, browserRecords(t))
	for _, s := range []string{hostileText, "seed " + hostileText, "<img src=x onerror=alert(3)>"} {
		if !strings.Contains(f.Text, s) {
			t.Errorf("the page does not show %q as text", s)
		}
	}
	if f.First != "summary" || len(f.Board) != 0 || f.Folds != 0 {
		t.Errorf("a page of no seed opens with #%s, has a board of %v rows and %d folds", f.First, f.Board, f.Folds)
	}
}

// TestSeedBoardInChromium opens the report of the real seed records, plus a seed of crafted runs
// whose texts (its id too) are hostile and whose ratios are +Inf, 0 and none, in headless Chromium: the page
// opens with the verdict board, a row per claim (each with its strip drawn, openPage counting
// them among the charts), the hostile texts shown as text, and the summary and the runs folded
// by seed, a link to a folded run opening its fold.
func TestSeedBoardInChromium(t *testing.T) {
	recs := append(withStandIns(loadSeedRecords(t)), edgeSeed("edge"+hostileText, hostileText)...)
	f, ctx := openPage(t, recs)
	seeds := seedSections(recs)
	var want []int
	for _, s := range seeds {
		want = append(want, len(s.Claims))
	}
	if f.First != "board" || fmt.Sprint(f.Board) != fmt.Sprint(want) {
		t.Errorf("the page opens with #%s, its board's rows per seed %v, want #board and %v", f.First, f.Board, want)
	}
	if f.Strips != f.Rows() {
		t.Errorf("%d of the board's %d rows have a strip drawn", f.Strips, f.Rows())
	}
	if folds := len(foldBySeed(recs)); f.Folds != 2*folds {
		t.Errorf("%d folds, want %d: the summary's and the runs' of each of %d seeds", f.Folds, 2*folds, folds)
	}
	if open, err := chromedp.Run(ctx, chromedp.Evaluate[bool](revealJS, chromedp.EvalAwaitPromise)); err != nil || !open {
		t.Errorf("a link to a folded run leaves its fold closed (%v)", err)
	}
	for _, s := range []string{"Edge " + hostileText, "A beats B " + hostileText, "(standing in for " + hostileText + ")",
		"(standing in for " + standIn + ")"} {
		if !strings.Contains(f.Text, s) {
			t.Errorf("the page does not show %q as text", s)
		}
	}
}

// revealJS follows the summary's link to its last run, which is folded in its seed's runs, and
// says whether its fold opened.
const revealJS = `(async () => {
  const link = [...document.querySelectorAll('#summary a[href^="#run-"]')].pop();
  const fold = document.getElementById(link.getAttribute('href').slice(1)).closest('details.fold');
  if (fold.open) { return false; }
  link.click();
  await new Promise(r => setTimeout(r, 100));
  return fold.open;
})()`

// openPage renders recs, checks the file's size, opens it in headless Chromium through the
// DevTools protocol and checks what every page must be: nothing on the console, no uncaught
// exception and no dialog; every chart drawn (its canvas painted, one Chart.js instance each, as
// many as the page's data has charts); every table-of-contents link and in-page link pointing at
// an element, and every section listed in the table of contents; no markup from a record in the
// page. The page stays in the test's artifacts (go test -artifacts).
func openPage(t *testing.T, recs []*result.Record) (pageFacts, context.Context) {
	t.Helper()
	bin := chromium(t)
	html := renderHTML(t, recs)
	if len(html) >= maxHTMLSize {
		t.Errorf("report of %d records: %d bytes, want under %d", len(recs), len(html), maxHTMLSize)
	}
	file := filepath.Join(t.ArtifactDir(), "report.html")
	if err := os.WriteFile(file, html, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("report: %s (%d bytes, %d records)", file, len(html), len(recs))

	ctx := browser(t, bin)
	var c complaints
	c.listen(t, ctx)
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+file)); err != nil {
		t.Fatalf("navigate: %v", err)
	}
	f, err := chromedp.Run(ctx, chromedp.Evaluate[pageFacts](factsJS))
	if err != nil {
		t.Fatalf("reading the page: %v", err)
	}
	for _, m := range c.all() {
		t.Errorf("the page complained: %s", m)
	}
	if f.Errors != "" || f.Ready != "yes" {
		t.Errorf("page caught errors %q, data-ready %q", f.Errors, f.Ready)
	}
	checkCharts(t, f, buildPage(recs, HTMLOptions{}).Data)
	checkLinks(t, f)
	if f.Scripts != 3 || f.InjectedMarkup {
		t.Errorf("%d script elements (want 3: the error catcher, Chart.js, the drawing code), markup injected %v", f.Scripts, f.InjectedMarkup)
	}
	return f, ctx
}

// TestHTMLSizeAtSeedsScale renders the real records of browserRecords eight times over (264
// runs: more than the five seeds' suites have at their short size, 206), with the seeds' records
// beside them for the verdict board and the folds, and checks that the page stays under
// maxHTMLSize.
func TestHTMLSizeAtSeedsScale(t *testing.T) {
	recs := loadSeedRecords(t)
	for i := range 8 {
		for _, r := range browserRecords(t) {
			c := *r
			c.StartedAt = c.StartedAt.Add(time.Duration(i) * time.Hour)
			recs = append(recs, &c)
		}
	}
	if n := len(renderHTML(t, recs)); n >= maxHTMLSize {
		t.Errorf("report of %d records: %d bytes, want under %d", len(recs), n, maxHTMLSize)
	} else {
		t.Logf("report of %d records: %d bytes", len(recs), n)
	}
}

// checkCharts checks that the page drew every chart its data has, each on a painted canvas.
func checkCharts(t *testing.T, f pageFacts, d chartData) {
	t.Helper()
	want := len(d.Bars) + len(d.Spectra) + len(d.Series) + len(d.Curves) + len(d.Tables)
	if len(d.Ratios) > 0 {
		want++
	}
	if d.Board != nil {
		want += len(d.Board.Strips)
	}
	if want == 0 || f.Drawn != want || f.Canvases != want || f.Instances != want {
		t.Errorf("charts: %d in the data, %d drawn, %d canvases, %d Chart.js instances", want, f.Drawn, f.Canvases, f.Instances)
	}
	if len(f.Blank) > 0 {
		t.Errorf("%d blank canvases: %s", len(f.Blank), strings.Join(f.Blank, "; "))
	}
}

// checkLinks checks the table of contents: there is one, every section is in it, and it and
// every other in-page link point at an element.
func checkLinks(t *testing.T, f pageFacts) {
	t.Helper()
	if len(f.TOC) < 2 {
		t.Errorf("table of contents %v: want a link per section", f.TOC)
	}
	if len(f.Unlisted) > 0 {
		t.Errorf("sections not in the table of contents: %v", f.Unlisted)
	}
	if len(f.Broken) > 0 {
		t.Errorf("links to no element: %v", f.Broken)
	}
}

package httpcmd_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/service"
)

// startNginx starts a real nginx answering "Hello world!" on 127.0.0.1, over h2c with prior
// knowledge when http2 is set, its access log on; it returns the URL and the log's path.
func startNginx(t *testing.T, http2 bool) (url, log string) {
	t.Helper()
	inst := runNginx(t, service.NginxSite{HTTP2: http2})
	return inst.URL + "/", filepath.Join(inst.Dir, service.NginxAccessLog)
}

// runNginx starts site on a free port of 127.0.0.1 with one worker answering "Hello world!",
// its access log on, until the test ends.
func runNginx(t *testing.T, site service.NginxSite) *service.Instance {
	t.Helper()
	if err := service.Installed("nginx"); err != nil {
		t.Fatal(err) // scripts/install-services.sh installs it
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	site.Port = ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	site.Answer, site.Workers, site.AccessLog = "Hello world!", 1, true
	ctx := context.Background()
	inst, err := service.StartNginx(ctx, site, service.Options{StateDir: sharedDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inst.Stop(ctx) })
	return inst
}

// accessLogged counts the lines of nginx's access log that are an iobench GET answered 200 over
// proto ("HTTP/1.1", "HTTP/2.0") and all its lines, waiting up to 2 s for want lines.
func accessLogged(t *testing.T, log, proto string, want int) (ok, all int) {
	t.Helper()
	for end := time.Now().Add(2 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		b, err := os.ReadFile(log)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(b) == 0 {
			lines = nil
		}
		ok = 0
		for _, l := range lines {
			if strings.Contains(l, `"GET / `+proto+`" 200 12 `) && strings.HasSuffix(l, `"iobench"`) {
				ok++
			}
		}
		if len(lines) >= want || time.Now().After(end) {
			return ok, len(lines)
		}
	}
}

// TestCountsAgainstNginx loads a real nginx pipelined 16 deep and over h2c with 50 streams per
// connection: every request iobench counts is one line of nginx's access log, and no more.
func TestCountsAgainstNginx(t *testing.T) {
	for _, tc := range []struct {
		name  string
		http2 bool
		args  []string
		proto string
	}{
		{"pipelined 16 deep", false, []string{"--pipeline", "16"}, "HTTP/1.1"},
		{"h2c 50 streams", true, []string{"--http2-prior-knowledge", "--streams", "50"}, "HTTP/2.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, log := startNginx(t, tc.http2)
			const requests = 5003
			rec, _ := runRecord(t, append([]string{"-t1", "-c3", "-n", "5003"}, append(tc.args, url)...)...)
			ok, all := accessLogged(t, log, tc.proto, requests)
			if rec.Counts.Succeeded != requests || rec.Counts.Failed != 0 || ok != requests || all != requests {
				t.Fatalf("iobench counted %d succeeded, %d failed; nginx logged %d lines, %d of them iobench's %s GETs answered 200; want %d each",
					rec.Counts.Succeeded, rec.Counts.Failed, all, ok, tc.proto, requests)
			}
		})
	}
}

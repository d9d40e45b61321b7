package httpcmd_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/httpcmd"
	"github.com/iobench/iobench/internal/httpload"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/service"
	"github.com/iobench/iobench/internal/testcert"
)

// tlsNginx is a real nginx serving "Hello world!" over https on 127.0.0.1 with a self-signed
// certificate made by the test, its access log on.
type tlsNginx struct {
	url  string
	cert *testcert.Cert
	log  string // the site's access log
}

func startTLSNginx(t *testing.T) *tlsNginx {
	t.Helper()
	cert := testcert.New(t)
	inst := runNginx(t, service.NginxSite{TLS: &service.NginxTLS{CertPEM: cert.CertPEM, KeyPEM: cert.KeyPEM}})
	t.Logf("nginx %s on %s", inst.Version, inst.URL)
	return &tlsNginx{url: inst.URL + "/", cert: cert, log: filepath.Join(inst.Dir, service.NginxAccessLog)}
}

// sharedDir is a temporary directory nginx's user (www-data when we are root) can enter.
func sharedDir(t *testing.T) string {
	dir := t.TempDir()
	for d := dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// logged returns the number of lines of the access log that are an iobench request answered
// 200, and of all its lines; it waits up to 2 s for want lines, since nginx logs a request after
// it has sent the answer.
func (n *tlsNginx) logged(t *testing.T, want int) (ok, all int) {
	t.Helper()
	return accessLogged(t, n.log, "HTTP/1.1", want)
}

// runHTTP runs `iobench http ARGS...` in this process, as iobench-http would.
func runHTTP(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	root := httpcmd.New("iobench http URL", "iobench-http")
	cli.Quiet(root, &out, &errb)
	code = cli.Execute(root, args, "iobench", &errb)
	return code, out.String(), errb.String()
}

// runRecord runs a load that must succeed and returns its record.
func runRecord(t *testing.T, args ...string) (*result.Record, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "r.json")
	code, stdout, stderr := runHTTP(append([]string{"--quiet", "--json", path}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d; stderr %q", code, stderr)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rec result.Record
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	return &rec, stdout
}

// TestHTTPSAgainstNginx loads a real nginx over TLS: every request is counted alike by iobench
// and by nginx's access log, the handshakes are counted apart (one per connection, resumed when
// connections are redialled), and an untrusted certificate stops the run before any load with
// a hint, as does --http2 on this server, which offers http/1.1 alone in ALPN.
func TestHTTPSAgainstNginx(t *testing.T) {
	n := startTLSNginx(t)
	logged := 0 // access log lines so far
	expectLogged := func(t *testing.T, more int) {
		t.Helper()
		ok, all := n.logged(t, logged+more)
		if all != logged+more || ok != all {
			t.Errorf("nginx logged %d requests (%d of them iobench's answered 200), want %d", all-logged, ok-logged, more)
		}
		logged = all
	}

	t.Run("cacert keep-alive", func(t *testing.T) {
		const requests, conns = 2000, 4
		rec, stdout := runRecord(t, "-t1", "-c"+strconv.Itoa(conns), "-n", strconv.Itoa(requests), "--expect-body", "^Hello world!$", "--cacert", n.cert.CAFile, n.url)
		expectLogged(t, requests)
		if rec.Counts.Succeeded != requests || rec.Counts.Failed != 0 || rec.Target != n.url {
			t.Errorf("record: target %s, counts %+v; want %d successes against %s", rec.Target, rec.Counts, requests, n.url)
		}
		tl := rec.TLS
		if tl == nil || tl.Handshakes != conns || tl.Version != "TLS 1.3" || tl.Protocol != "http/1.1" ||
			tl.Handshake == nil || tl.Handshake.Count != conns || tl.Connect == nil || tl.Connect.Count != conns {
			t.Fatalf("tls section %+v; want one TLS 1.3 handshake per connection (%d), ALPN http/1.1, each timed", tl, conns)
		}
		if !strings.Contains(stdout, "TLS 1.3 ") || !strings.Contains(stdout, strconv.Itoa(conns)+" handshakes") {
			t.Errorf("text block lacks the TLS line:\n%s", stdout)
		}
	})

	t.Run("no keep-alive resumes", func(t *testing.T) {
		const requests = 300
		rec, _ := runRecord(t, "-t1", "-c2", "-n", strconv.Itoa(requests), "--no-keepalive", "--cacert", n.cert.CAFile, n.url)
		expectLogged(t, requests)
		tl := rec.TLS
		if rec.Counts.Succeeded != requests || tl == nil || tl.Handshakes != requests {
			t.Fatalf("counts %+v, tls %+v; want %d successes, each on a connection of its own", rec.Counts, tl, requests)
		}
		if tl.Resumed == 0 || tl.Resumed > tl.Handshakes {
			t.Errorf("%d of %d handshakes resumed; want the redials to resume the run's sessions", tl.Resumed, tl.Handshakes)
		}
		t.Logf("%d handshakes, %d resumed; handshake p50 %.0fus, connect p50 %.0fus", tl.Handshakes, tl.Resumed, tl.Handshake.At(50), tl.Connect.At(50))
	})

	t.Run("insecure", func(t *testing.T) {
		rec, _ := runRecord(t, "-t1", "-c2", "-n", "100", "--insecure", n.url)
		expectLogged(t, 100)
		if rec.Counts.Succeeded != 100 {
			t.Errorf("counts %+v; want 100 successes", rec.Counts)
		}
	})

	bad := []struct {
		name string
		args []string
		want []string
	}{
		{"untrusted", []string{n.url}, []string{"not trusted", "--cacert", "--insecure"}},
		{"another name", []string{"--cacert", n.cert.CAFile, "--sni", "example.com", n.url}, []string{"example.com", "--sni", "--insecure"}},
		{"missing cacert", []string{"--cacert", "/no/such/ca.pem", n.url}, []string{"--cacert", "/no/such/ca.pem"}},
		{"cacert and insecure", []string{"--cacert", n.cert.CAFile, "--insecure", n.url}, []string{"--insecure", "--cacert"}},
		{"tls flags on http", []string{"--insecure", strings.Replace(n.url, "https://", "http://", 1)}, []string{"https:// URLs only"}},
		{"h2 refused in ALPN", []string{"--http2", "--cacert", n.cert.CAFile, n.url}, []string{"does not speak HTTP/2", `chose "http/1.1"`, "drop --http2"}},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runHTTP(append([]string{"-c1", "-n", "10"}, tt.args...)...)
			if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
				t.Errorf("exit %d, stderr %q; want exit 2 and one line", code, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
			expectLogged(t, 0) // no load was sent
		})
	}
}

// TestDoAllocsTLSNginx measures the client's allocations per request on a keep-alive TLS
// connection to nginx (a process of its own, so they are the client's alone): iobench's code
// allocates nothing, Go's crypto/tls once per record it reads (readFromUntil's atLeastReader).
func TestDoAllocsTLSNginx(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	n := startTLSNginx(t)
	tg, err := httpload.ParseURL(n.url)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := httpload.TLSConfig(tg, httpload.TLSOptions{CAFile: n.cert.CAFile})
	if err != nil {
		t.Fatal(err)
	}
	c, err := httpload.DialTLS(context.Background(), tg.Addr, cfg, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req := httpload.RequestSpec{Target: tg}.Build()
	var failed error
	do := func() {
		if resp, err := c.Do(req, time.Now().Add(5*time.Second)); err != nil || resp.Status != 200 {
			failed = err
		}
	}
	do()
	allocs := testing.AllocsPerRun(1000, do)
	if failed != nil {
		t.Fatal(failed)
	}
	t.Logf("Do over TLS to nginx: %v allocations per request", allocs)
	if allocs > 1 {
		t.Errorf("Do over TLS allocates %v times per request, want at most 1 (crypto/tls's record reader)", allocs)
	}
}

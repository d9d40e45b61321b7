package hello

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/impl/impltest"
	"github.com/iobench/iobench/internal/relay/relaytest"
	"github.com/iobench/iobench/internal/workload"
	"github.com/iobench/iobench/internal/workload/web"
)

// rawServer answers every request with resp (whatever the path, unless notFound is set and the
// path is not /), and closes the connection after the first when closeAfter is set.
func rawServer(t *testing.T, resp string, closeAfter bool) string {
	t.Helper()
	return relaytest.Server(t, func(c net.Conn) { serveRaw(c, resp, closeAfter) })
}

func serveRaw(c net.Conn, resp string, closeAfter bool) {
	br := bufio.NewReader(c)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		out := resp
		if req.URL.Path != "/" {
			out = "HTTP/1.1 404 Not Found\r\nContent-Length: 10\r\n\r\nnot found\n"
		}
		if _, err := c.Write([]byte(out)); err != nil || closeAfter {
			return
		}
	}
}

// checkRoutes runs verify's checks of hello route / on addr (checkRoute) and of an unknown route.
func checkRoutes(t *testing.T, addr string, routes []string) []impl.RouteProblem {
	return web.CheckRoutes(t.Context(), addr, routes, checkRoute)
}

// TestCheckRoutesFraming checks the hello route against servers that frame their answers right
// and wrong: each flaw is named by its finding, and a correct server has no problem.
func TestCheckRoutesFraming(t *testing.T) {
	good := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		w.Write([]byte("Hello world!"))
	}))
	defer good.Close()
	cases := []struct {
		name    string
		addr    string
		finding string
		msg     string
	}{
		{"correct", strings.TrimPrefix(good.URL, "http://"), "", ""},
		{"body longer than Content-Length", rawServer(t, "HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\nHello world!\n", false),
			"content-length-mismatch", `Content-Length is 12 but "\n" followed the body`},
		{"body shorter than Content-Length", rawServer(t, "HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\nHello world!", true),
			"content-length-mismatch", "Content-Length is 13 but the body ended after 12 bytes"},
		{"closes after each response", rawServer(t, "HTTP/1.1 200 OK\r\nContent-Length: 12\r\nConnection: close\r\n\r\nHello world!", true),
			"no-keepalive", "closed the connection after one response"},
		{"closes without saying so", rawServer(t, "HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\nHello world!", true),
			"no-keepalive", "closed the connection after one response"},
		{"wrong body", rawServer(t, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nHello", false),
			"", `GET /: body "Hello", want "Hello world!"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			problems := checkRoutes(t, tc.addr, []string{"/"})
			if tc.msg == "" {
				if len(problems) > 0 {
					t.Fatalf("problems %v", problems)
				}
				return
			}
			if len(problems) == 0 || problems[0].Finding != tc.finding || !strings.Contains(problems[0].Msg, tc.msg) {
				t.Fatalf("problems %q; want the first with finding %q and %q", problems, tc.finding, tc.msg)
			}
		})
	}
}

// hasProblem says whether problems hold one with finding whose message contains msg.
func hasProblem(problems []impl.RouteProblem, finding, msg string) bool {
	for _, p := range problems {
		if p.Finding == finding && strings.Contains(p.Msg, msg) {
			return true
		}
	}
	return false
}

// TestCheckRoutesLongBodyAndClose checks that seed 4's ReactPHP, which writes 13 bytes under
// Content-Length: 12 and closes every connection, shows both flaws, though the first ends the
// framing check.
func TestCheckRoutesLongBodyAndClose(t *testing.T) {
	for name, resp := range map[string]string{
		"says close":            "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 12\r\nConnection: close\r\n\r\nHello world!\n",
		"closes without a word": "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 12\r\n\r\nHello world!\n",
	} {
		t.Run(name, func(t *testing.T) {
			problems := checkRoutes(t, rawServer(t, resp, true), []string{"/"})
			if !hasProblem(problems, "content-length-mismatch", `Content-Length is 12 but "\n" followed the body`) ||
				!hasProblem(problems, "no-keepalive", "closed the connection after one response") || len(problems) != 2 {
				t.Fatalf("problems %q; want content-length-mismatch and no-keepalive only", problems)
			}
		})
	}
	keeps := rawServer(t, "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 12\r\n\r\nHello world!\n", false)
	if problems := checkRoutes(t, keeps, []string{"/"}); hasProblem(problems, "no-keepalive", "") {
		t.Fatalf("a server that keeps the connection: problems %q", problems)
	}
}

// TestCheckRoutesHeaders checks GET /'s Content-Type and Content-Length.
func TestCheckRoutesHeaders(t *testing.T) {
	cases := []struct{ name, resp, msg string }{
		{"html", "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 12\r\n\r\nHello world!", `Content-Type "text/html", want "text/plain; charset=utf-8"`},
		{"no type", "HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\nHello world!", `Content-Type "", want`},
		{"chunked", "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nTransfer-Encoding: chunked\r\n\r\nc\r\nHello world!\r\n0\r\n\r\n",
			"Content-Length none (chunked or delimited by the end of the connection), want 12"},
		{"spelled otherwise", "HTTP/1.1 200 OK\r\nContent-Type: Text/Plain;Charset=UTF-8\r\nContent-Length: 12\r\n\r\nHello world!", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			problems := checkRoutes(t, rawServer(t, tc.resp, false), []string{"/"})
			if tc.msg == "" && len(problems) > 0 || tc.msg != "" && (len(problems) != 1 || !hasProblem(problems, "", tc.msg)) {
				t.Fatalf("problems %q; want only %q", problems, tc.msg)
			}
		})
	}
}

// limitServer answers GET / like a correct hello server but, like Aerys's connectionsPerIP,
// closes at once every connection beyond limit open ones.
func limitServer(t *testing.T, limit int) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	resp := "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 12\r\n\r\nHello world!"
	var mu sync.Mutex
	open := 0
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			over := open >= limit
			if !over {
				open++
			}
			mu.Unlock()
			if over {
				c.Close()
				continue
			}
			go func() {
				serveRaw(c, resp, false)
				c.Close()
				mu.Lock()
				open--
				mu.Unlock()
			}()
		}
	}()
	return ln.Addr().String()
}

// TestCheckRoutesConnectionLimit checks that a per-client limit of 30 connections shows as
// connection-limit with the number turned away, and that a server without one shows nothing.
// The number is 70, or up to 72 on a busy machine: the test server counts a connection of
// checkRoute's earlier checks as open until its goroutine sees the close, as a real server may.
func TestCheckRoutesConnectionLimit(t *testing.T) {
	problems := checkRoutes(t, limitServer(t, 30), []string{"/"})
	var n int
	ok := len(problems) == 1 && problems[0].Finding == "connection-limit"
	if ok {
		_, err := fmt.Sscanf(problems[0].Msg, "GET / on 100 connections open at once: %d were refused or closed without a response", &n)
		ok = err == nil && n >= 70 && n <= 72
	}
	if !ok {
		t.Fatalf("problems %q; want connection-limit with 70 (to 72) turned away", problems)
	}
	if problems := checkRoutes(t, limitServer(t, 1000), []string{"/"}); len(problems) > 0 {
		t.Fatalf("no limit: problems %q", problems)
	}
}

// TestVerifyAsyncioHello runs `iobench verify`'s checks of the repo's python-asyncio-hello:
// every route check passes, framing and keep-alive included.
func TestVerifyAsyncioHello(t *testing.T) {
	m, err := impl.Find("../../../impls", "python-asyncio-hello")
	if err != nil {
		t.Fatal(err)
	}
	inst := impltest.InstallOrSkip(t, m, t.TempDir())
	var out strings.Builder
	if failures, err := verify(t.Context(), &workload.VerifyEnv{Out: &out}, inst); failures != 0 || err != nil {
		t.Fatalf("%d failures, err %v:\n%s", failures, err, out.String())
	}
	if !strings.Contains(out.String(), "ok   hello async: 1 route(s) answer") {
		t.Fatalf("verify wrote\n%s", out.String())
	}
}

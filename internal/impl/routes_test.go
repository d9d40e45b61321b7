package impl

import (
	"bufio"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// rawServer answers every request with resp (whatever the path, unless notFound is set and the
// path is not /), and closes the connection after the first when closeAfter is set.
func rawServer(t *testing.T, resp string, closeAfter bool) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serveRaw(c, resp, closeAfter)
		}
	}()
	return ln.Addr().String()
}

func serveRaw(c net.Conn, resp string, closeAfter bool) {
	defer c.Close()
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
			problems := CheckRoutes(t.Context(), tc.addr, []string{"/"})
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

func TestCheckRoutesUnknownRoute(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("Hello world!")) }))
	defer srv.Close()
	problems := CheckRoutes(t.Context(), strings.TrimPrefix(srv.URL, "http://"), []string{"/"})
	if len(problems) != 1 || problems[0].String() != "GET /iobench-no-such-route: status 200, want 404" {
		t.Fatalf("problems %q", problems)
	}
}

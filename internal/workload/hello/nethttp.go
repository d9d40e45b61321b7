package hello

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/iobench/iobench/internal/rawhttp"
)

// Servers are the built-in hello servers `iobench serve hello --server` chooses from: the
// raw-socket one (Serve) and one on the standard library's net/http (ServeNetHTTP).
var Servers = []string{ServerRaw, ServerNetHTTP}

// Server names: also the go-hello impl's variants that run them (IOBENCH_VARIANT).
const (
	ServerRaw     = "raw"
	ServerNetHTTP = "net-http"
)

// VariantHTTP2 is the go-hello impl's variant that `iobench serve hello` serves as --http2 does
// (IOBENCH_VARIANT): net/http, HTTP/1.1 and h2c on one port.
const VariantHTTP2 = "http2"

// ServeNetHTTP answers HTTP on ln with net/http until ctx is cancelled, then closes ln and every
// connection and returns nil, like Serve. It answers what Serve answers (GET and HEAD / -> 200
// "Hello world!", another path 404, another method 405), with net/http's own parsing, keep-alive,
// Date header and a goroutine per connection, so that the two side by side show what the
// standard library costs.
func ServeNetHTTP(ctx context.Context, ln net.Listener) error {
	return serveNetHTTP(ctx, ln, false)
}

// ServeHTTP2 is ServeNetHTTP answering HTTP/2 with prior knowledge (h2c) too, on the same
// port: net/http tells the two apart by the HTTP/2 connection preface.
func ServeHTTP2(ctx context.Context, ln net.Listener) error {
	return serveNetHTTP(ctx, ln, true)
}

func serveNetHTTP(ctx context.Context, ln net.Listener, h2c bool) error {
	srv := &http.Server{
		Handler:           http.HandlerFunc(netHTTPHello),
		ReadHeaderTimeout: 10 * time.Second,
		MaxHeaderBytes:    rawhttp.MaxHeaderBytes,
	}
	if h2c {
		srv.Protocols = new(http.Protocols)
		srv.Protocols.SetHTTP1(true)
		srv.Protocols.SetUnencryptedHTTP2(true)
	}
	stop := context.AfterFunc(ctx, func() { srv.Close() })
	defer stop()
	err := srv.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) && ctx.Err() != nil {
		return nil
	}
	return err
}

var (
	textPlain   = []string{"text/plain; charset=utf-8"}
	serverToken = []string{"iobench"}
	helloLength = []string{strconv.Itoa(len(Body))}
)

// netHTTPHello is the handler; header values are set as preallocated slices, so the handler
// itself allocates nothing per request beyond what net/http does.
func netHTTPHello(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h["Content-Type"] = textPlain
	h["Server"] = serverToken
	switch {
	case r.URL.Path != "/":
		writeText(w, http.StatusNotFound, notFoundBytes)
	case r.Method != http.MethodGet && r.Method != http.MethodHead:
		h["Allow"] = []string{allowHeader}
		writeText(w, http.StatusMethodNotAllowed, notAllowed)
	default:
		h["Content-Length"] = helloLength
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			w.Write(helloBytes)
		}
	}
}

// writeText answers status with a one-line text body.
func writeText(w http.ResponseWriter, status int, body []byte) {
	w.Header()["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(status)
	w.Write(body)
}

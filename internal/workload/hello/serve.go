package hello

import (
	"context"
	"net"

	"github.com/iobench/iobench/internal/rawhttp"
)

// The answers' bodies, the same on both servers.
var (
	helloBytes    = []byte(Body)
	notFoundBytes = []byte("not found: iobench hello serves only GET /\n")
	notAllowed    = []byte("method not allowed: use GET or HEAD\n")
)

// allowHeader is what a 405 says is allowed.
const allowHeader = "GET, HEAD"

// Serve answers HTTP/1.1 on ln with iobench's raw-socket server until ctx is cancelled, then
// closes ln and every open connection and returns nil (see rawhttp.Serve).
func Serve(ctx context.Context, ln net.Listener) error { return rawhttp.Serve(ctx, ln, answer) }

// answer is hello's rawhttp.Handler.
func answer(_ context.Context, req rawhttp.Request, a *rawhttp.Answer) {
	switch {
	case string(req.Path) != "/":
		a.Status, a.Body = 404, append(a.Body, notFoundBytes...)
	case req.Method == rawhttp.MethodOther:
		a.Status, a.Header, a.Body = 405, "Allow: "+allowHeader+"\r\n", append(a.Body, notAllowed...)
	default:
		a.Status, a.Body = 200, append(a.Body, helloBytes...)
	}
}

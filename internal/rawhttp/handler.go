package rawhttp

import (
	"context"
	"strconv"
)

// Method is a request's method, as far as the server tells them apart.
type Method uint8

// The methods.
const (
	MethodOther Method = iota
	MethodGet
	MethodHead // answered as GET, without the body
)

// Request is a parsed request as a Handler sees it. Path is the target's path without its query
// (an absolute-form target's path); it points into the connection's buffer, valid only while
// the Handler runs.
type Request struct {
	Method Method
	Path   []byte
}

// Answer is a response: its status, any extra header lines (each ending in "\r\n") and its
// body, which is sent as text/plain; charset=utf-8.
type Answer struct {
	Status int
	Header string
	Body   []byte
}

// Handler answers a request: it sets a.Status (and a.Header if it has any) and appends the body
// to a.Body, which comes empty but with the capacity of the connection's earlier answers. It runs
// on the connection's goroutine and may block; the connection's next request waits for it. ctx
// is Serve's.
type Handler func(ctx context.Context, req Request, a *Answer)

// statusLines are the status lines, with the Server header, of the statuses iobench's servers
// answer.
var statusLines = map[int]string{}

func init() {
	for status, reason := range map[int]string{
		200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed",
		431: "Request Header Fields Too Large", 500: "Internal Server Error", 501: "Not Implemented",
		503: "Service Unavailable", 505: "HTTP Version Not Supported",
	} {
		statusLines[status] = "HTTP/1.1 " + strconv.Itoa(status) + " " + reason + "\r\nServer: iobench\r\n"
	}
}

// statusLine returns the status line and Server header of status.
func statusLine(status int) string {
	if l, ok := statusLines[status]; ok {
		return l
	}
	return "HTTP/1.1 " + strconv.Itoa(status) + " Status " + strconv.Itoa(status) + "\r\nServer: iobench\r\n"
}

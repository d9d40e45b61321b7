// Package httpload is the lean HTTP/1.1 client of the load engine: what wrk does in C, in Go,
// without net/http's per-request goroutines, maps and strings.
//
// A run parses its URL and headers once (ParseURL, ParseHeader), builds the request bytes once
// (RequestSpec.Build) and then, on each worker's Conn, calls Do with the same bytes over and over.
// Do writes the request and reads exactly one response (Content-Length, chunked with trailers,
// close-delimited; no body for HEAD, 1xx, 204 and 304) in a buffer the Conn owns, comparing header
// names in place, so a steady run allocates nothing per request and the garbage collector stays
// out of the latency numbers. Bodies are skipped unless SetKeepBody asks to check them.
//
// Failures are counted as wrk counts them: every Error has a Class (Connect, Read, Write,
// Timeout). After an error a Conn is unusable and the caller redials; a response with
// KeepAlive false also ends the connection. Abort, from another goroutine, ends a Do that is
// blocked (the engine uses it when a run stops).
//
// The response parser is a resumable state machine (Parser): the caller reads into its buffer
// (Space, Wrote) and Parse consumes what is there, saying "need more" instead of blocking. Do
// drives it from a blocking io.Reader; the engine's event loop drives the same Parser from
// non-blocking sockets. Tests and fuzzing drive it from memory, one byte at a time if they like.
package httpload

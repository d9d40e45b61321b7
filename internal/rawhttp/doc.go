// Package rawhttp is iobench's HTTP/1.1 server on raw sockets, for built-in services whose
// answers are short text bodies (go-hello, go-cachequeue): so that the service, not a framework,
// is what a benchmark of it measures.
//
// Serve runs one goroutine per connection with two buffers allocated once: each read is parsed in
// place, every complete request in it (pipelining included) is answered into one output buffer,
// and the whole batch goes out in one write. The Handler gives each request's status, extra
// headers and body; the Date header is formatted once a second, not per response.
//
// What the server does itself, wire-compatible with what wrk, ab and hey expect:
//   - every response has Server: iobench, Date, Content-Type text/plain; charset=utf-8 and a
//     Content-Length; HEAD gets GET's headers without the body;
//   - HTTP/1.1 keeps the connection unless Connection: close; HTTP/1.0 closes it unless
//     Connection: keep-alive;
//   - a Content-Length request body is read and discarded; Transfer-Encoding -> 501 and close;
//     a malformed request -> 400 and close; request headers over 16 KiB -> 431 and close;
//     a version other than HTTP/1.x -> 505 and close.
//
// Serve stops when its context is cancelled, closing the listener and every open connection.
package rawhttp

// Package hello is the built-in system under test of the hello workload (seed aerys-benchmark):
// an HTTP/1.1 server that answers GET / with "Hello world!", written on raw sockets so that the
// server, not its framework, is what a benchmark of the generator leaves standing.
//
// Serve runs one goroutine per connection with two buffers allocated once: each read is parsed in
// place, every complete request in it (pipelining included) is answered into one output buffer,
// and the whole batch goes out in one write. Responses are canned byte strings; the Date header is
// formatted once a second, not per request.
//
// Behaviour, wire-compatible with what wrk, ab and hey expect:
//   - GET / and HEAD / -> 200, "Hello world!", Content-Type text/plain; charset=utf-8,
//     Content-Length 12, Date, Server: iobench;
//   - another path -> 404, another method on / -> 405 (Allow: GET, HEAD), each with a one-line body;
//   - HTTP/1.1 keeps the connection unless Connection: close; HTTP/1.0 closes it unless
//     Connection: keep-alive;
//   - a Content-Length request body is read and discarded; Transfer-Encoding -> 501 and close;
//     a malformed request -> 400 and close; request headers over 16 KiB -> 431 and close;
//     a version other than HTTP/1.x -> 505 and close.
//
// Serve stops when its context is cancelled, closing the listener and every open connection.
package hello

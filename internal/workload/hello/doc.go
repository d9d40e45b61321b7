// Package hello is the hello workload (seed aerys-benchmark) and its built-in system under test:
// GET / answers "Hello world!", on iobench's raw-socket server (Serve, package rawhttp) or on
// net/http (ServeNetHTTP), so that the two side by side show what the standard library costs.
//
// What both answer:
//   - GET / and HEAD / -> 200, "Hello world!", Content-Type text/plain; charset=utf-8,
//     Content-Length 12, Date, Server: iobench;
//   - another path -> 404, another method on / -> 405 (Allow: GET, HEAD), each with a one-line body.
//
// The raw server answers malformed requests itself (see package rawhttp).
package hello

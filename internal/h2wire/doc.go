// Package h2wire is the HTTP/2 wire format (RFC 9113) as the load engine speaks it on its event
// loop: frame headers parsed and appended in place, the control frames a client sends, a
// request's header block encoded once for a whole run, and a response's :status read without
// allocating from blocks coded without the dynamic table (the client sets its size to 0).
//
// It frames bytes the caller already holds, and never reads or writes a socket: the engine's
// event loop buffers what its non-blocking sockets give and asks for one frame at a time. That is
// why it does not use x/net's Framer, which reads with io.ReadFull from an io.Reader and allocates
// a frame for every HEADERS frame; headers are coded with x/net's hpack. Stream bookkeeping, flow
// control and scheduling are the engine's.
package h2wire

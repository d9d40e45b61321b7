// Package zmq implements backend.WorkQueue as a ZeroMQ PUSH/PULL pipe with
// github.com/go-zeromq/zmq4, a pure-Go ZeroMQ (ZMTP 3), so iobench builds with CGO_ENABLED=0.
//
// The URL names the endpoint with a zmq+ prefix: zmq+ipc:///tmp/zmq.sock for ipc:///tmp/zmq.sock
// (the seed's), zmq+tcp://127.0.0.1:5555 for tcp://127.0.0.1:5555. As in the seed, the receiving
// side binds and the sending side connects: a Queue binds a PULL socket at its first Pop (or
// Listen), and connects a PUSH socket at its first Push, retrying for up to 5 s while nothing is
// bound there yet. A receiver and its senders are usually different processes, each opening the
// URL; one Queue may also do both. Listen on tcp port 0 binds a free port, which the Queue's own
// Push then uses. A stale ipc socket file (its process died) is removed before binding.
//
// What zmq4 does differently from libzmq, and so from the seed's PHP client: it has no send queue
// of its own, so Push returns once the message is written to the socket of the connected PULL
// peer (waiting while that peer's buffers are full), and a message pushed after the peer has gone
// can be dropped without an error; count at the receiving side. Up to 10 received messages wait
// inside the PULL socket, and one in the Queue, before Pop takes them: Close drops them.
//
// A queue of sockets cannot tell its length: Len returns an error wrapping
// backend.ErrUnsupported, and Received (the messages Pop returned) is the count to check.
// zmq4 takes no context: a context is checked before each Push, and a Pop waits on it.
package zmq

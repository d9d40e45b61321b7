"""A minimal asyncio hello server for iobench (seed 4's workload).

GET / answers 200 "Hello world!" (12 bytes, text/plain; charset=utf-8) and keeps the
connection open (HTTP/1.1 keep-alive, pipelined requests answered in order); anything else
answers 404 with a one-line reason. One process, one event loop, listening on IOBENCH_LISTEN
(host:port). SIGTERM or SIGINT stops it.

Variants (IOBENCH_VARIANT): async runs on the standard library's event loop (selectors/epoll);
uvloop runs the same protocol on uvloop's libuv loop, the libuv data point of seed 4 (whose
Aerys UvReactor needs php-uv, which Debian does not ship).
"""

import asyncio
import os
import signal
import sys

HELLO = (
    b"HTTP/1.1 200 OK\r\n"
    b"Content-Type: text/plain; charset=utf-8\r\n"
    b"Content-Length: 12\r\n"
    b"\r\n"
    b"Hello world!"
)
MAX_HEAD = 64 * 1024  # a request head larger than this is refused


def reply(status, reason, body):
    """Returns a complete response with a one-line text body."""
    data = body.encode() + b"\n"
    head = "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\n" % (
        status, reason, len(data))
    return head.encode() + b"\r\n" + data


class Hello(asyncio.Protocol):
    """One connection: parses requests from the buffer and answers each in order."""

    def connection_made(self, transport):
        self.transport = transport
        self.buf = b""

    def data_received(self, data):
        self.buf += data
        out = []
        while True:
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                if len(self.buf) > MAX_HEAD:
                    self.finish(out, reply(431, "Request Header Fields Too Large", "request head too large"))
                    return
                break
            head, rest = self.buf[:end], self.buf[end + 4:]
            answer, keep, body_len = self.handle(head)
            if answer is None:
                self.finish(out, reply(400, "Bad Request", "malformed request line"))
                return
            if len(rest) < body_len:
                break  # wait for the body, which is read and ignored
            self.buf = rest[body_len:]
            out.append(answer)
            if not keep:
                self.finish(out, None)
                return
        if out:
            self.transport.write(b"".join(out))

    def handle(self, head):
        """Returns (response, keep the connection open, request body length to skip)."""
        lines = head.split(b"\r\n")
        parts = lines[0].split(b" ")
        if len(parts) != 3 or not parts[2].startswith(b"HTTP/1."):
            return None, False, 0
        method, target, version = parts
        keep = version == b"HTTP/1.1"
        body_len = 0
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            name, value = name.strip().lower(), value.strip().lower()
            if name == b"connection":
                keep = value == b"keep-alive" if version == b"HTTP/1.0" else value != b"close"
            elif name == b"content-length" and value.isdigit():
                body_len = int(value)
        if method == b"GET" and target == b"/":
            return HELLO, keep, body_len
        return reply(404, "Not Found", "not found: only GET / is served"), keep, body_len

    def finish(self, out, last):
        """Writes what is answered (and a last response) and closes the connection."""
        if last is not None:
            out.append(last)
        self.transport.write(b"".join(out))
        self.transport.close()


async def main():
    addr = os.environ.get("IOBENCH_LISTEN", "127.0.0.1:8080")
    host, _, port = addr.rpartition(":")
    loop = asyncio.get_running_loop()
    stop = loop.create_future()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set_result, None)
    server = await loop.create_server(Hello, host.strip("[]") or "127.0.0.1", int(port), reuse_address=True)
    print("asyncio-hello (%s): pid %d, %s, listening on http://%s/" % (
        os.environ.get("IOBENCH_VARIANT", "async"), os.getpid(), type(loop).__module__, addr), flush=True)
    async with server:
        await stop


def run():
    """Runs main on the variant's event loop."""
    variant = os.environ.get("IOBENCH_VARIANT", "async")
    if variant == "async":
        asyncio.run(main())
    elif variant == "uvloop":
        import uvloop  # installed into the impl's virtualenv from requirements.txt

        uvloop.run(main())
    else:
        print("asyncio-hello: unknown variant %r; use async or uvloop" % variant, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    try:
        run()
    except OSError as e:
        print("asyncio-hello: cannot listen: %s" % e, file=sys.stderr)
        sys.exit(2)

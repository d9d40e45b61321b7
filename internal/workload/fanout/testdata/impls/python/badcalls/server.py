"""A fanout impl that breaks the one-call rule on purpose, for iobench's tests: it answers every
route with the upstream's JSON and a Server-Timing header, after CALLS calls (0: none, 2: two)."""

import os
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

UPSTREAM = os.environ["IOBENCH_UPSTREAM_URL"]
CALLS = int(os.environ["CALLS"])
HOST, PORT = os.environ["IOBENCH_LISTEN"].rsplit(":", 1)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        t0 = time.perf_counter()
        if self.path not in ("/sync", "/async", "/async-overlap"):
            self.answer(404, b"no such route\n", t0)
            return
        for _ in range(CALLS):
            urllib.request.urlopen(UPSTREAM, timeout=10).read()
        self.answer(200, b'{"foo":"bar"}', t0)

    def answer(self, status, body, t0):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Server-Timing", "app;dur=%.3f" % ((time.perf_counter() - t0) * 1000))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer((HOST, int(PORT)), Handler).serve_forever()

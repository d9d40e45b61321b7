"""The sync side of seed 4's hello workload: a WSGI app served by gunicorn's pre-forked sync
workers, each handling one request at a time (a worker reads a request, answers it and closes
the connection before it accepts the next).

GET / answers 200 "Hello world!" (12 bytes, text/plain; charset=utf-8); anything else answers
404 with a one-line reason. gunicorn.conf.py binds IOBENCH_LISTEN and sets the worker count of
the variant.
"""

HELLO = b"Hello world!"
NOT_FOUND = b"not found: only GET / is served\n"


def app(environ, start_response):
    """Answers one request."""
    if environ["REQUEST_METHOD"] == "GET" and environ.get("PATH_INFO") == "/" and not environ.get("QUERY_STRING"):
        status, body = "200 OK", HELLO
    else:
        status, body = "404 Not Found", NOT_FOUND
    start_response(status, [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(body)))])
    return [body]

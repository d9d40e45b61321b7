"""gunicorn settings of python-sync-hello, from the iobench environment.

IOBENCH_LISTEN is the address; IOBENCH_VARIANT the worker count: sync runs one sync worker (one
process serving, like every other hello impl), prefork one per CPU this process may run on.
"""

import os
import sys

variant = os.environ.get("IOBENCH_VARIANT", "sync")
if variant == "sync":
    workers = 1
elif variant == "prefork":
    workers = len(os.sched_getaffinity(0))
else:
    print("sync-hello: unknown variant %r; use sync or prefork" % variant, file=sys.stderr)
    sys.exit(2)

bind = [os.environ.get("IOBENCH_LISTEN", "127.0.0.1:8080")]
worker_class = "sync"
backlog = 2048          # gunicorn's default, said here: a sync server leans on its listen queue
graceful_timeout = 2    # iobench stops the impl with SIGTERM and a 5 s grace
accesslog = None        # no per-request log line: it would cost more than the request
errorlog = "-"
loglevel = "warning"
proc_name = "sync-hello"


def when_ready(server):
    """Says, once, what runs: the variant, the master's pid and the workers."""
    print("sync-hello (%s): gunicorn master %d, %d sync worker(s), listening on http://%s/"
          % (variant, os.getpid(), workers, bind[0]), flush=True)

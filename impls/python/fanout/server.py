"""Seed 5's service in Python (iobench's fanout workload), on one aiohttp event loop.

GET /sync           requests (a blocking client) calls the upstream, then time.sleep does the
                    work, both in one of THREADS worker threads, as PHP-FPM workers would: the
                    request makes no progress meanwhile, other requests go on in other threads.
GET /async          the seed's shape: the aiohttp call is created as a coroutine, the work awaits
                    a timer (asyncio.sleep: the event loop runs other requests meanwhile), then
                    the coroutine is awaited. A coroutine runs only once awaited, so, like
                    Guzzle's sendAsync() before wait(), nothing is sent during the work.
GET /async-overlap  the call is started as a task, then the same timer is awaited: the call and
                    the work run concurrently.

Every answer is the upstream's JSON, re-encoded, with Server-Timing: app;dur=MS (its handling
time); any other path answers 404 with a one-line reason. Settings come from IOBENCH_LISTEN,
IOBENCH_UPSTREAM_URL and IOBENCH_WORK_MS.
"""

import asyncio
import concurrent.futures
import json
import os
import threading
import time

import requests
from aiohttp import ClientSession, ClientTimeout, TCPConnector, web

UPSTREAM = os.environ["IOBENCH_UPSTREAM_URL"]
WORK = float(os.environ.get("IOBENCH_WORK_MS", "10")) / 1000
HOST, PORT = os.environ.get("IOBENCH_LISTEN", "127.0.0.1:8080").rsplit(":", 1)
THREADS = 64  # /sync workers: more than any load's concurrency here, like pm.max_children
HEADERS = {"Accept": "application/json"}

pool = concurrent.futures.ThreadPoolExecutor(max_workers=THREADS)
local = threading.local()


def sync_call_then_work():
    """The blocking route's body, in a worker thread: call, then work."""
    session = getattr(local, "session", None)
    if session is None:  # one keep-alive client per thread
        session = local.session = requests.Session()
    r = session.get(UPSTREAM, headers=HEADERS, timeout=30)
    r.raise_for_status()
    body = r.json()
    time.sleep(WORK)
    return body


async def fetch(session):
    async with session.get(UPSTREAM, headers=HEADERS) as r:
        r.raise_for_status()
        return await r.json()


async def route_sync(request):
    return await asyncio.get_running_loop().run_in_executor(pool, sync_call_then_work)


async def route_async(request):
    pending = fetch(request.app["session"])  # created, not started
    await asyncio.sleep(WORK)
    return await pending


async def route_async_overlap(request):
    call = asyncio.ensure_future(fetch(request.app["session"]))  # started now
    await asyncio.sleep(WORK)
    return await call


def timed(route):
    async def handler(request):
        t0 = time.perf_counter()
        try:
            body = await route(request)
        except Exception as e:  # the upstream failed: one line, 502
            status, text, ctype = 502, f"upstream: {type(e).__name__}: {e}".replace("\n", " ") + "\n", "text/plain"
        else:
            status, text, ctype = 200, json.dumps(body, separators=(",", ":")), "application/json"
        dur = (time.perf_counter() - t0) * 1000
        return web.Response(status=status, text=text, content_type=ctype, headers={"Server-Timing": f"app;dur={dur:.3f}"})
    return handler


async def not_found(request):
    return web.Response(status=404, text=f"no such route: {request.method} {request.path}; the routes are GET /sync, /async and /async-overlap\n")


async def client(app):
    app["session"] = ClientSession(connector=TCPConnector(limit=0), timeout=ClientTimeout(total=30))
    yield
    await app["session"].close()


def main():
    app = web.Application()
    app.cleanup_ctx.append(client)
    app.router.add_get("/sync", timed(route_sync))
    app.router.add_get("/async", timed(route_async))
    app.router.add_get("/async-overlap", timed(route_async_overlap))
    app.router.add_route("*", "/{tail:.*}", not_found)
    web.run_app(app, host=HOST, port=int(PORT), access_log=None, print=None, shutdown_timeout=1)


if __name__ == "__main__":
    main()

"""Seed 3's app (iobench's cachequeue workload) in Python, on one aiohttp event loop.

GET /cache/fake       answers "0\n", touching nothing.
GET /cache/memcached  increments "visits" in Memcached (aiomcache); a missing key is created at 0
                      and the request answers 0, as the seed's increment with an initial value.
GET /cache/redis      INCR "visits" on Redis DB 1 (redis.asyncio); answers the new value.
GET /queue/fake       an empty 200, touching nothing.
GET /queue/zmq        sends "visit" on one PUSH socket (zmq.asyncio) connected to
                      IOBENCH_ZMQ_ENDPOINT (iobench, or a consumer, binds the PULL side); with no
                      peer, messages wait in the socket up to its high-water mark, then sends wait.
GET /queue/redis      LPUSH "queue" "visit" on Redis DB 1; an empty 200.

The seed's Predis routes (/cache/predis, /queue/predis) are a PHP client's: here they answer 404,
like any other path, with a one-line reason. Every client is made once, when the app starts, and
shared by all requests (connection pools for Redis and Memcached, one ZeroMQ socket). Settings
come from IOBENCH_LISTEN, IOBENCH_REDIS_URL, IOBENCH_MEMCACHED_ADDR and IOBENCH_ZMQ_ENDPOINT; a
route whose setting is missing answers 500 with the reason.
"""

import os

import aiomcache
import redis.asyncio as aioredis
import zmq
import zmq.asyncio
from aiohttp import web

HOST, PORT = os.environ.get("IOBENCH_LISTEN", "127.0.0.1:8080").rsplit(":", 1)
KEY = "visits"
LIST = "queue"
MESSAGE = b"visit"
DB = 1
POOL = 64  # connections per store at most: more than any load's concurrency here


class Missing(Exception):
    """A store's setting is not in the environment."""


def setting(name):
    value = os.environ.get(name, "")
    if not value:
        raise Missing(f"{name} is not set; iobench gives it to runs that use this driver")
    return value


class Stores:
    """The clients, each made on its first use and then shared."""

    def __init__(self):
        self._redis = None
        self._mc = None
        self._push = None
        self._zctx = None

    def redis(self):
        if self._redis is None:
            self._redis = aioredis.Redis.from_url(setting("IOBENCH_REDIS_URL"), db=DB, max_connections=POOL)
        return self._redis

    def memcached(self):
        if self._mc is None:
            host, port = setting("IOBENCH_MEMCACHED_ADDR").rsplit(":", 1)
            self._mc = aiomcache.Client(host, int(port), pool_size=POOL)
        return self._mc

    def push(self):
        if self._push is None:
            endpoint = setting("IOBENCH_ZMQ_ENDPOINT")
            self._zctx = zmq.asyncio.Context()
            sock = self._zctx.socket(zmq.PUSH)
            sock.setsockopt(zmq.LINGER, 0)
            sock.connect(endpoint)
            self._push = sock
        return self._push

    async def close(self):
        if self._redis is not None:
            await self._redis.aclose()
        if self._mc is not None:
            await self._mc.close()
        if self._push is not None:
            self._push.close()
            self._zctx.term()


async def memcached_increment(mc):
    key = KEY.encode()
    try:
        return await mc.incr(key, 1)
    except aiomcache.exceptions.ClientException as e:
        # aiomcache folds the reply into the message: "Memcached b'incr' command failed: bytearray(b'NOT_FOUND')"
        if "NOT_FOUND" not in str(e):
            raise
    if await mc.add(key, b"0"):  # created at 0: this request is not counted, as in the seed
        return 0
    return await mc.incr(key, 1)  # another request created it meanwhile


async def cache(stores, driver):
    if driver == "fake":
        return 0
    if driver == "redis":
        return await stores.redis().incr(KEY)
    if driver == "memcached":
        return await memcached_increment(stores.memcached())
    return None


async def queue(stores, driver):
    if driver == "fake":
        return True
    if driver == "redis":
        await stores.redis().lpush(LIST, MESSAGE)
        return True
    if driver == "zmq":
        await stores.push().send(MESSAGE)
        return True
    return False


CACHE_DRIVERS = "fake, memcached, redis"
QUEUE_DRIVERS = "fake, zmq, redis"


def not_found(text):
    return web.Response(status=404, text=text + "\n")


async def route_cache(request):
    driver = request.match_info["driver"]
    try:
        value = await cache(request.app["stores"], driver)
    except Missing as e:
        return web.Response(status=500, text=f"{e}\n")
    if value is None:
        return not_found(f'no cache driver "{driver}"; use one of {CACHE_DRIVERS}')
    return web.Response(text=f"{value}\n")


async def route_queue(request):
    driver = request.match_info["driver"]
    try:
        ok = await queue(request.app["stores"], driver)
    except Missing as e:
        return web.Response(status=500, text=f"{e}\n")
    if not ok:
        return not_found(f'no queue driver "{driver}"; use one of {QUEUE_DRIVERS}')
    return web.Response(text="")


async def route_other(request):
    return not_found(f"no route {request.path}; use /cache/{{driver}} or /queue/{{driver}}")


async def stores_ctx(app):
    app["stores"] = Stores()
    yield
    await app["stores"].close()


def main():
    app = web.Application()
    app.cleanup_ctx.append(stores_ctx)
    app.router.add_get("/cache/{driver}", route_cache)
    app.router.add_get("/queue/{driver}", route_queue)
    app.router.add_route("*", "/{tail:.*}", route_other)
    web.run_app(app, host=HOST, port=int(PORT), access_log=None, print=None, shutdown_timeout=1)


if __name__ == "__main__":
    main()

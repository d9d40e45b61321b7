"""The async counterpart of seed 2's pika publishers: aio-pika on asyncio, driven by iobench.

Contract (`iobench impls --help`, workload publish): settings come from the environment
(IOBENCH_AMQP_URL, IOBENCH_QUEUE, IOBENCH_COUNT, IOBENCH_VARIANT, IOBENCH_CONCURRENCY,
IOBENCH_PERSISTENT, IOBENCH_CONFIRM). Print "ready" once connected, wait for a line on stdin,
publish IOBENCH_COUNT messages through the default exchange, print "result sent=N seconds=S" and
exit 0. iobench declares the queue and counts at the broker.

One process, one connection, one channel; IOBENCH_CONCURRENCY tasks publish contiguous id
ranges concurrently. With confirms each task awaits its message's confirm, so up to
IOBENCH_CONCURRENCY messages are outstanding; without, a publish returns once written.
"""

import asyncio
import json
import os
import sys
import time
from datetime import datetime

import aio_pika

URL = os.environ["IOBENCH_AMQP_URL"]
QUEUE = os.environ["IOBENCH_QUEUE"]
COUNT = int(os.environ["IOBENCH_COUNT"])
CONCURRENCY = max(int(os.environ.get("IOBENCH_CONCURRENCY") or 1), 1)
PERSISTENT = os.environ.get("IOBENCH_PERSISTENT") == "1"
CONFIRM = os.environ.get("IOBENCH_CONFIRM") == "1"


def split(count, parts):
    """Contiguous id ranges; the remainder goes to the first parts, none is dropped."""
    out, first = [], 0
    for k in range(parts):
        n = count // parts + (1 if k < count % parts else 0)
        out.append((first, n))
        first += n
    return out


async def publish_range(exchange, first, n):
    mode = aio_pika.DeliveryMode.PERSISTENT if PERSISTENT else aio_pika.DeliveryMode.NOT_PERSISTENT
    for i in range(first, first + n):
        body = json.dumps(
            {"id": i, "content": f"Hello World #{i}", "timestamp": datetime.now().isoformat()}
        ).encode()
        await exchange.publish(
            aio_pika.Message(body, content_type="application/json", delivery_mode=mode),
            routing_key=QUEUE,
        )
    return n


async def main():
    connection = await aio_pika.connect(URL)
    channel = await connection.channel(publisher_confirms=CONFIRM)
    exchange = channel.default_exchange
    print("ready", flush=True)
    line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    if not line:
        sys.exit("stdin closed before the start signal")
    start = time.perf_counter()
    counts = await asyncio.gather(
        *(publish_range(exchange, first, n) for first, n in split(COUNT, CONCURRENCY))
    )
    elapsed = time.perf_counter() - start
    await connection.close()
    print(f"result sent={sum(counts)} seconds={elapsed:.6f}", flush=True)


if __name__ == "__main__":
    asyncio.run(main())

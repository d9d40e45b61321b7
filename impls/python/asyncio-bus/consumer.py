"""Seed 1's service-bus consumer, substituted in Python asyncio (service-bus needs amphp/postgres,
ext-pq and bunny, none of which Debian ships): aio-pika with prefetch 100, an asyncpg pool, 80
handlers in flight in one process. For each command: BEGIN; INSERT; publish the event inside the
transaction; COMMIT; then report and ack, as service-bus acked after its handler.

Contract (docs/IMPLS.md, the bus report stream): settings from IOBENCH_AMQP_URL,
IOBENCH_DATABASE_URL, IOBENCH_CONCURRENCY (handlers in flight, and the pool's size),
IOBENCH_PREFETCH and IOBENCH_BUS_PROFILE; "ready" on stdout once consuming, then one line per
message, written in one write before its ack. Topology, as service-bus declared it: direct
exchange "demo" bound to the durable queue "demo.messages" with key "demo"; in the seed profile
events go the same way, transient and unconfirmed; in the durable profile they are persistent and
confirmed, to demo.events through the default exchange, which is consumed too.
"""

import asyncio
import json
import os
import signal
import sys
import time

import aio_pika
import asyncpg

EXCHANGE, QUEUE, KEY, EVENT_QUEUE = "demo", "demo.messages", "demo", "demo.events"
# The seed's INSERT, idempotent on id so that a redelivered command makes no second row.
INSERT = "INSERT INTO customers (id, name, email) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING"

DURABLE = os.environ.get("IOBENCH_BUS_PROFILE") == "durable"
CONCURRENCY = max(int(os.environ.get("IOBENCH_CONCURRENCY") or 80), 1)
PREFETCH = max(int(os.environ.get("IOBENCH_PREFETCH") or 100), 1)


def report(kind, seq, message):
    """One report line in one write(2), before the ack."""
    r = 1 if message.redelivered else 0
    os.write(1, f"{kind} {seq} {time.time_ns()} {r}\n".encode())


class Consumer:
    def __init__(self, pool, exchange):
        self.pool = pool
        self.exchange = exchange
        self.slots = asyncio.Semaphore(CONCURRENCY)  # service-bus: maxConcurrentTaskCount 80
        self.tasks = set()
        self.failed = asyncio.get_running_loop().create_future()

    async def on_message(self, message):
        # Taken at once (aio-pika hands deliveries in order), handled as its own task once one of
        # the CONCURRENCY slots is free: at most PREFETCH held, CONCURRENCY in flight.
        await self.slots.acquire()
        task = asyncio.create_task(self.handle(message))
        self.tasks.add(task)
        task.add_done_callback(self.done)

    def done(self, task):
        self.tasks.discard(task)
        self.slots.release()
        if not task.cancelled() and task.exception() and not self.failed.done():
            self.failed.set_exception(task.exception())

    async def handle(self, message):
        data = json.loads(message.body)
        kind = data.get("type")
        if kind == "command":
            event = aio_pika.Message(
                json.dumps({"type": "event", "id": data["id"], "seq": data["seq"], "sent_ns": data["sent_ns"]}).encode(),
                delivery_mode=aio_pika.DeliveryMode.PERSISTENT if DURABLE else aio_pika.DeliveryMode.NOT_PERSISTENT,
            )
            async with self.pool.acquire() as conn:
                async with conn.transaction():
                    await conn.execute(INSERT, data["id"], data["name"], data["email"])
                    # awaited: written (seed), or confirmed by the broker (durable)
                    await self.exchange.publish(event, routing_key=EVENT_QUEUE if DURABLE else KEY)
            report("c", data["seq"], message)
        elif kind == "event":
            report("e", data["seq"], message)
        else:
            os.write(1, b"x\n")
        await message.ack()


async def main():
    pool = await asyncpg.create_pool(os.environ["IOBENCH_DATABASE_URL"], min_size=CONCURRENCY, max_size=CONCURRENCY)
    connection = await aio_pika.connect(os.environ["IOBENCH_AMQP_URL"])
    channel = await connection.channel(publisher_confirms=DURABLE)
    await channel.set_qos(prefetch_count=PREFETCH)
    if DURABLE:
        exchange = channel.default_exchange
    else:
        exchange = await channel.declare_exchange(EXCHANGE, aio_pika.ExchangeType.DIRECT, durable=True)
    consumer = Consumer(pool, exchange)
    queues = [await channel.declare_queue(QUEUE, durable=True)]
    if DURABLE:
        queues.append(await channel.declare_queue(EVENT_QUEUE, durable=True))
    tags = [(q, await q.consume(consumer.on_message)) for q in queues]
    os.write(1, b"ready\n")

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    stopped = asyncio.create_task(stop.wait())
    await asyncio.wait([stopped, consumer.failed], return_when=asyncio.FIRST_COMPLETED)
    # Graceful stop: no new deliveries; handlers in flight finish and ack; the rest is requeued.
    for q, tag in tags:
        await q.cancel(tag)
    if consumer.tasks:
        await asyncio.wait(list(consumer.tasks))
    await connection.close()
    await pool.close()
    if consumer.failed.done():
        consumer.failed.result()  # raises the handler's error: exit 1


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)

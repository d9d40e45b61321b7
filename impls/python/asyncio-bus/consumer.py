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

Broker restarts (iobench's --fault restart-broker): aio-pika's robust connection reconnects (every
RECONNECT_EVERY seconds; it has no back-off of its own), declares the exchange and queues again,
restores the prefetch and consumes again with the same callback; a watchdog gives up after
GIVE_UP_AFTER seconds without a broker. A handler whose publish fails with the connection rolls
back and reports nothing; a delivery of a closed channel is neither handled nor acked (its ack
would fail): the broker redelivers both. A message reported whose ack was lost comes back too,
and iobench counts it twice.
"""

import asyncio
import json
import os
import signal
import sys
import time

import aio_pika
import aiormq
import asyncpg

EXCHANGE, QUEUE, KEY, EVENT_QUEUE = "demo", "demo.messages", "demo", "demo.events"
# The seed's INSERT, idempotent on id so that a redelivered command makes no second row.
INSERT = "INSERT INTO customers (id, name, email) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING"

DURABLE = os.environ.get("IOBENCH_BUS_PROFILE") == "durable"
CONCURRENCY = max(int(os.environ.get("IOBENCH_CONCURRENCY") or 80), 1)
PREFETCH = max(int(os.environ.get("IOBENCH_PREFETCH") or 100), 1)
RECONNECT_EVERY = 1  # seconds between aio-pika's reconnect attempts
GIVE_UP_AFTER = 60  # seconds without a broker before the consumer exits
# An ack or a publish on a connection that died under it may wait forever for its write to drain
# (aiormq): they are bounded, in seconds, and a timeout counts as the broker lost.
ACK_TIMEOUT, PUBLISH_TIMEOUT = 5, 10
# What a publish or an ack raises when the connection or its channel is gone.
BROKER_LOST = (aiormq.exceptions.AMQPConnectionError, aiormq.exceptions.AMQPChannelError,
               aiormq.exceptions.ChannelInvalidStateError, ConnectionError, asyncio.TimeoutError)


def report(kind, seq, message):
    """One report line in one write(2), before the ack."""
    r = 1 if message.redelivered else 0
    os.write(1, f"{kind} {seq} {time.time_ns()} {r}\n".encode())


def stale(message):
    """Whether the message came on a channel that has closed since: the broker redelivers it."""
    try:
        message.channel
    except aiormq.exceptions.ChannelInvalidStateError:
        return True
    return False


async def watch_broker(connection):
    """Says on stderr when the broker is lost and back; raises once it has been away too long."""
    closed = asyncio.Event()  # set by every close, failed reconnect attempts included
    connection.close_callbacks.add(lambda *_: closed.set())
    while True:
        await closed.wait()
        closed.clear()
        if connection.connected.is_set():
            continue
        print(f"broker lost; reconnecting every {RECONNECT_EVERY} s", file=sys.stderr)
        try:
            await asyncio.wait_for(connection.connected.wait(), GIVE_UP_AFTER)
        except asyncio.TimeoutError:
            raise RuntimeError(f"no broker for {GIVE_UP_AFTER} s; giving up") from None
        print("broker back", file=sys.stderr)


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
        if stale(message):
            return
        data = json.loads(message.body)
        kind = data.get("type")
        if kind == "command":
            try:
                await self.store(data)
            except BROKER_LOST:
                return  # rolled back, not acked: the broker redelivers it
            report("c", data["seq"], message)
        elif kind == "event":
            report("e", data["seq"], message)
        else:
            os.write(1, b"x\n")
        try:
            await asyncio.wait_for(message.ack(), ACK_TIMEOUT)
        except BROKER_LOST:
            pass  # reported, but its ack is lost with the channel: it comes back and counts twice

    async def store(self, data):
        """BEGIN; INSERT; publish the event; COMMIT, rolled back when the publish fails."""
        event = aio_pika.Message(
            json.dumps({"type": "event", "id": data["id"], "seq": data["seq"], "sent_ns": data["sent_ns"]}).encode(),
            delivery_mode=aio_pika.DeliveryMode.PERSISTENT if DURABLE else aio_pika.DeliveryMode.NOT_PERSISTENT,
        )
        async with self.pool.acquire() as conn:
            async with conn.transaction():
                await conn.execute(INSERT, data["id"], data["name"], data["email"])
                # awaited: written (seed), or confirmed by the broker (durable)
                await self.exchange.publish(event, routing_key=EVENT_QUEUE if DURABLE else KEY, timeout=PUBLISH_TIMEOUT)


async def main():
    pool = await asyncpg.create_pool(os.environ["IOBENCH_DATABASE_URL"], min_size=CONCURRENCY, max_size=CONCURRENCY)
    # fails at once when the first connection fails (a wrong URL); reconnects after that
    connection = await aio_pika.connect_robust(os.environ["IOBENCH_AMQP_URL"], reconnect_interval=RECONNECT_EVERY)
    watchdog = asyncio.create_task(watch_broker(connection))
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
    await asyncio.wait([stopped, consumer.failed, watchdog], return_when=asyncio.FIRST_COMPLETED)
    if watchdog.done():
        sys.exit(str(watchdog.exception()))  # exit 1, one line, without waiting for handlers that cannot finish
    watchdog.cancel()
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

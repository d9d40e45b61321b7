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

PostgreSQL restarts (--fault restart-postgres): a handler whose transaction fails because the
database is gone (a connection closed under it, SQLSTATE class 08 or 57P01-57P03, a refused
connect) rolls back, reports nothing and nacks the message with requeue: the broker redelivers it
and ON CONFLICT makes the redelivery safe (its event may be seen twice). The asyncpg pool replaces
its closed connections itself on the next acquire. The handlers share one back-off while the
database is away (DB_RETRY_FIRST doubling to DB_RETRY_MAX seconds before the next attempt), and
the consumer gives up after GIVE_UP_AFTER seconds without one.
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
DB_RETRY_FIRST, DB_RETRY_MAX = 0.1, 2  # seconds of back-off after a lost database, doubling
CLOSE_GRACE = 1  # seconds for the server to close a connection asyncpg found out of step
# What a publish or an ack raises when the connection or its channel is gone.
BROKER_LOST = (aiormq.exceptions.AMQPConnectionError, aiormq.exceptions.AMQPChannelError,
               aiormq.exceptions.ChannelInvalidStateError, ConnectionError, asyncio.TimeoutError)
# What asyncpg raises when the server or the connection is gone: SQLSTATE class 08 and the
# server's shutdown and start-up (57P01-57P03); a connect refused is an OSError.
DB_LOST = (asyncpg.PostgresConnectionError, asyncpg.AdminShutdownError, asyncpg.CrashShutdownError,
           asyncpg.CannotConnectNowError, OSError)


class PublishLost(Exception):
    """The event's publish failed with the broker: told apart from a lost database, since both
    may raise a ConnectionError (aiormq's AMQPConnectionError is one)."""


def database_lost(error):
    """Whether the transaction failed because the database went away, not because of the command.
    The error's chain counts too: the clean-up after a lost connection (the rollback, the pool's
    reset) may fail with an error of its own, raised instead."""
    seen = set()
    while error is not None and id(error) not in seen:
        if lost_connection(error):
            return True
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return False


def lost_connection(error):
    """One error, without its chain: SQLSTATE class 08 or 57P01-57P03, or a closed connection."""
    if isinstance(error, DB_LOST):
        return True
    if isinstance(error, asyncpg.PostgresError):
        state = error.sqlstate or ""
        return state.startswith("08") or state in ("57P01", "57P02", "57P03")
    # asyncpg's own check on a connection the server closed
    return isinstance(error, asyncpg.InterfaceError) and "connection is closed" in str(error)


def report(kind, seq, message):
    """One report line in one write(2), before the ack."""
    r = 1 if message.redelivered else 0
    os.write(1, f"{kind} {seq} {time.time_ns()} {r}\n".encode())


async def out_of_step(conn, error):
    """Tells a FATAL that reached an idle connection from a fault of asyncpg's: asyncpg takes the
    unsolicited message (57P01 at a restart) for a protocol error of its own, and the next query
    on that connection fails with InternalClientError; the server closes the socket right after
    its FATAL. Raises ConnectionDoesNotExistError if the connection closes within CLOSE_GRACE,
    else the error again."""
    deadline = time.monotonic() + CLOSE_GRACE
    while not is_closed(conn):
        if time.monotonic() >= deadline:
            raise error
        await asyncio.sleep(0.01)
    raise asyncpg.ConnectionDoesNotExistError("connection closed by the server") from error


def is_closed(conn):
    """A pool's proxy detaches once its connection closes under it (the pool takes it back)."""
    try:
        return conn.is_closed()
    except AttributeError:
        return True


async def reset(conn):
    """The pool's reset before a connection goes back (asyncpg's default query), where a FATAL
    that arrived after the COMMIT shows up as an InternalClientError."""
    query = conn.get_reset_query()
    if not query:
        return
    try:
        await conn.execute(query)
    except asyncpg.InternalClientError as error:
        await out_of_step(conn, error)


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


class Database:
    """One back-off shared by all handlers while PostgreSQL is away, so that 80 handlers failing
    together count as one attempt, and redelivered commands do not spin against a closed port."""

    def __init__(self):
        self.lost_since = None  # monotonic time of the first failure of this outage
        self.delay = 0
        self.retry_at = 0
        self.round = 0  # attempts started in one round fail or succeed together
        self.gone = asyncio.get_running_loop().create_future()  # fails after GIVE_UP_AFTER

    async def attempt(self):
        """Waits out the back-off; returns the round the attempt belongs to."""
        wait = self.retry_at - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
        return self.round

    def failed(self, turn):
        """A lost-database failure: the first of a round backs off further (or gives up)."""
        if turn != self.round:
            return  # its round has been counted already
        self.round += 1
        now = time.monotonic()
        if self.lost_since is None:
            self.lost_since, self.delay = now, DB_RETRY_FIRST
            print(f"database lost; retrying after {DB_RETRY_FIRST} s to {DB_RETRY_MAX} s", file=sys.stderr)
        else:
            self.delay = min(self.delay * 2, DB_RETRY_MAX)
        self.retry_at = now + self.delay
        if now - self.lost_since >= GIVE_UP_AFTER and not self.gone.done():
            self.gone.set_exception(RuntimeError(f"no database for {GIVE_UP_AFTER} s; giving up"))

    def succeeded(self, turn):
        """A transaction of the current round committed: the database is back."""
        if self.lost_since is None or turn != self.round:
            return  # not lost, or an attempt that started before the loss
        self.round += 1
        self.lost_since, self.retry_at = None, 0
        print("database back", file=sys.stderr)


class Consumer:
    def __init__(self, pool, exchange):
        self.pool = pool
        self.exchange = exchange
        self.database = Database()
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
            turn = await self.database.attempt()
            try:
                await self.store(data)
            except PublishLost:
                return  # rolled back, not acked: the broker redelivers it
            except Exception as error:
                if not database_lost(error):
                    raise
                self.database.failed(turn)
                await self.give_back(message)
                return
            self.database.succeeded(turn)
            report("c", data["seq"], message)
        elif kind == "event":
            report("e", data["seq"], message)
        else:
            os.write(1, b"x\n")
        try:
            await asyncio.wait_for(message.ack(), ACK_TIMEOUT)
        except BROKER_LOST:
            pass  # reported, but its ack is lost with the channel: it comes back and counts twice

    async def give_back(self, message):
        """Requeues a command whose transaction the database lost (never a reject): the broker
        redelivers it now, on a channel that is still open."""
        try:
            await asyncio.wait_for(message.nack(requeue=True), ACK_TIMEOUT)
        except BROKER_LOST:
            pass  # the channel went too: the broker redelivers it anyway

    async def store(self, data):
        """BEGIN; INSERT; publish the event; COMMIT, rolled back when the publish fails."""
        event = aio_pika.Message(
            json.dumps({"type": "event", "id": data["id"], "seq": data["seq"], "sent_ns": data["sent_ns"]}).encode(),
            delivery_mode=aio_pika.DeliveryMode.PERSISTENT if DURABLE else aio_pika.DeliveryMode.NOT_PERSISTENT,
        )
        async with self.pool.acquire() as conn:
            try:
                async with conn.transaction():
                    await conn.execute(INSERT, data["id"], data["name"], data["email"])
                    await self.publish(event)
            except asyncpg.InternalClientError as error:
                await out_of_step(conn, error)

    async def publish(self, event):
        """Awaited: written (seed), or confirmed by the broker (durable)."""
        try:
            await self.exchange.publish(event, routing_key=EVENT_QUEUE if DURABLE else KEY, timeout=PUBLISH_TIMEOUT)
        except BROKER_LOST as error:
            raise PublishLost() from error


async def leave(connection):
    """Closes the broker's connection before giving up on the database: the broker requeues the
    messages held at once, and no callback of aio-pika's is left to fail after the loop closed
    (lines of noise on stderr after the one that says why)."""
    try:
        await asyncio.wait_for(connection.close(), ACK_TIMEOUT)
    except (*BROKER_LOST, RuntimeError):
        pass  # the broker went too: the exit closes the socket


async def main():
    pool = await asyncpg.create_pool(os.environ["IOBENCH_DATABASE_URL"], min_size=CONCURRENCY, max_size=CONCURRENCY, reset=reset)
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
    gone = consumer.database.gone
    await asyncio.wait([stopped, consumer.failed, watchdog, gone], return_when=asyncio.FIRST_COMPLETED)
    if watchdog.done():
        sys.exit(str(watchdog.exception()))  # exit 1, one line, without waiting for handlers that cannot finish
    if gone.done():
        watchdog.cancel()  # the close is ours, not a broker lost
        await leave(connection)
        sys.exit(str(gone.exception()))  # exit 1, one line, as for the broker
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

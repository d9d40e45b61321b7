"""Seed 1's sync consumer in Python: pika's BlockingConnection and one psycopg connection, one
message at a time (prefetch 1), standing in for the seed's symfony/messenger beside the asyncio
one. For each command: BEGIN; INSERT; publish the event inside the transaction; COMMIT; then
report and ack.

Contract (docs/IMPLS.md, the bus report stream): settings from IOBENCH_AMQP_URL,
IOBENCH_DATABASE_URL and IOBENCH_BUS_PROFILE; "ready" on stdout once consuming, then one line per
message, written in one write before its ack. Topology, messenger's: fanout exchange "messages"
bound to the durable queue "messages"; in the seed profile events go the same way, transient and
unconfirmed; in the durable profile they are persistent and confirmed, to messages.events through
the default exchange, which is consumed too.

Broker restarts (iobench's --fault restart-broker): pika has no recovery, so the consumer loops.
When the connection is lost (raised out of start_consuming, by a publish, its confirm or an
ack), it connects again with back-off (100 ms doubling to 2 s), declares its queues and consumes
again; it gives up after 60 s without a session that lasted a second (supervisord's startsecs).
A publish lost with the connection rolls the transaction back and reports nothing; a message
reported whose ack was lost comes back redelivered, and iobench counts it twice.

PostgreSQL restarts (--fault restart-postgres): a command whose transaction failed because the
database connection was lost (an OperationalError after which the connection is broken or cannot
even roll back) reports nothing and goes back to its queue (a nack with requeue, never a
reject); the consumer connects to the database again with the same back-off, and the broker
redelivers the command. Its event may then be seen twice: it was published before the COMMIT
the restart broke.
"""

import json
import os
import signal
import sys
import time

import pika
import psycopg

EXCHANGE, QUEUE, EVENT_QUEUE = "messages", "messages", "messages.events"
# The seed's INSERT, idempotent on id so that a redelivered command makes no second row.
INSERT = "INSERT INTO customers (id, name, email) VALUES (%s, %s, %s) ON CONFLICT (id) DO NOTHING"
DURABLE = os.environ.get("IOBENCH_BUS_PROFILE") == "durable"
# Reconnect back-off, in seconds; a session that lasted WORKED_AFTER worked, and it starts over.
FIRST_DELAY, MAX_DELAY, GIVE_UP_AFTER, WORKED_AFTER = 0.1, 2.0, 60.0, 1.0
# What pika raises when the connection or its channel is gone (not a nack or a cancel).
BROKER_LOST = (pika.exceptions.AMQPConnectionError, pika.exceptions.ChannelClosed,
               pika.exceptions.ChannelWrongStateError)


def report(kind, seq, method):
    """One report line in one write(2), before the ack."""
    os.write(1, f"{kind} {seq} {time.time_ns()} {1 if method.redelivered else 0}\n".encode())


class Backoff:
    """Waits between reconnects to what (the broker or the database), FIRST_DELAY doubling to
    MAX_DELAY; exits once it has waited for GIVE_UP_AFTER seconds."""

    def __init__(self, what="broker"):
        self.what, self.delay, self.since = what, FIRST_DELAY, None

    def ended(self, started):
        """Says that a session begun at started (time.monotonic()) has ended."""
        if time.monotonic() - started >= WORKED_AFTER:
            self.delay, self.since = FIRST_DELAY, None

    def wait(self, cause):
        """Waits before the next attempt, or exits when the broker has been away too long."""
        now = time.monotonic()
        self.since = self.since or now
        if now - self.since >= GIVE_UP_AFTER:
            sys.exit(f"no {self.what} for {GIVE_UP_AFTER:.0f} s: {cause!r}")
        time.sleep(self.delay)
        self.delay = min(2 * self.delay, MAX_DELAY)


class Consumer:
    """In turn, each database connection and each broker connection, consumed until stopped."""

    def __init__(self, connect_db, params):
        self.connect_db = connect_db
        self.db = connect_db()
        self.params = params
        self.connection = self.channel = None
        self.ready = False
        self.stopping = False
        if DURABLE:
            self.target, self.key, mode = "", EVENT_QUEUE, pika.DeliveryMode.Persistent
        else:
            self.target, self.key, mode = EXCHANGE, "", pika.DeliveryMode.Transient
        self.props = pika.BasicProperties(content_type="application/json", delivery_mode=mode)

    def run(self):
        """Consumes until stopped, reconnecting after a lost broker; a wrong URL fails at once."""
        connection = pika.BlockingConnection(self.params)
        backoff = Backoff()
        while connection is not None:
            started = time.monotonic()
            try:
                self.consume(connection)
                connection.close()
                return
            except BROKER_LOST as e:
                print(f"broker lost: {e!r}; reconnecting", file=sys.stderr)
                backoff.ended(started)
                connection = self.reconnect(backoff, e)

    def reconnect(self, backoff, cause):
        """A new connection, after backoff's waits; None when stopped meanwhile."""
        while not self.stopping:
            backoff.wait(cause)
            try:
                return pika.BlockingConnection(self.params)
            except pika.exceptions.AMQPConnectionError as e:
                cause = e
        return None

    def consume(self, connection):
        """Declares the queues on a new channel and consumes them until stopped."""
        channel = connection.channel()
        channel.basic_qos(prefetch_count=1)
        if DURABLE:
            channel.confirm_delivery()  # basic_publish now waits for the broker's confirm
        for queue in (QUEUE, EVENT_QUEUE) if DURABLE else (QUEUE,):
            channel.queue_declare(queue, durable=True)
            channel.basic_consume(queue, self.on_message)
        self.connection, self.channel = connection, channel
        if not self.ready:
            os.write(1, b"ready\n")
            self.ready = True
        if not self.stopping:
            channel.start_consuming()

    def on_message(self, ch, method, _properties, body):
        data = json.loads(body)
        kind = data.get("type")
        if kind == "command":
            if not self.store(ch, data):
                ch.basic_nack(method.delivery_tag, requeue=True)
                self.reconnect_db()
                return
            report("c", data["seq"], method)
        elif kind == "event":
            report("e", data["seq"], method)
        else:
            os.write(1, b"x\n")
        ch.basic_ack(method.delivery_tag)

    def store(self, ch, data):
        """BEGIN; INSERT; publish the event; COMMIT. False when the database was lost under the
        transaction (nothing committed); any other failure rolls back and raises."""
        try:
            with self.db.cursor() as cur:
                cur.execute(INSERT, (data["id"], data["name"], data["email"]))
                event = {"type": "event", "id": data["id"], "seq": data["seq"], "sent_ns": data["sent_ns"]}
                ch.basic_publish(exchange=self.target, routing_key=self.key, body=json.dumps(event), properties=self.props)
            self.db.commit()
            return True
        except psycopg.OperationalError as e:
            if self.rolled_back():
                raise
            print(f"database lost: {e!r}; connecting again", file=sys.stderr)
            return False
        except BaseException:
            self.db.rollback()
            raise

    def rolled_back(self):
        """Rolls the transaction back; False when the connection is lost and cannot."""
        try:
            self.db.rollback()
        except psycopg.OperationalError:
            return False
        return not self.db.broken

    def reconnect_db(self):
        """A new database connection, after the back-off's waits (an exit after 60 s)."""
        self.db.close()
        backoff, cause = Backoff("database"), None
        while True:
            backoff.wait(cause)
            try:
                self.db = self.connect_db()
                return
            except psycopg.OperationalError as e:
                cause = e

    def stop(self, *_):
        """Ends start_consuming after the message in hand has been handled and acked."""
        self.stopping = True
        if self.connection is not None and self.connection.is_open:
            self.connection.add_callback_threadsafe(self.channel.stop_consuming)


def main():
    url = os.environ["IOBENCH_DATABASE_URL"]
    params = pika.URLParameters(os.environ["IOBENCH_AMQP_URL"])
    params.heartbeat = 0  # one long blocking loop; no heartbeat to miss while a handler runs
    # not autocommit: execute opens a transaction
    consumer = Consumer(lambda: psycopg.connect(url), params)
    signal.signal(signal.SIGTERM, consumer.stop)
    signal.signal(signal.SIGINT, consumer.stop)
    consumer.run()
    consumer.db.close()


if __name__ == "__main__":
    main()

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
"""

import json
import os
import signal
import time

import pika
import psycopg

EXCHANGE, QUEUE, EVENT_QUEUE = "messages", "messages", "messages.events"
# The seed's INSERT, idempotent on id so that a redelivered command makes no second row.
INSERT = "INSERT INTO customers (id, name, email) VALUES (%s, %s, %s) ON CONFLICT (id) DO NOTHING"
DURABLE = os.environ.get("IOBENCH_BUS_PROFILE") == "durable"


def report(kind, seq, method):
    """One report line in one write(2), before the ack."""
    os.write(1, f"{kind} {seq} {time.time_ns()} {1 if method.redelivered else 0}\n".encode())


def main():
    db = psycopg.connect(os.environ["IOBENCH_DATABASE_URL"])  # not autocommit: execute opens a transaction
    params = pika.URLParameters(os.environ["IOBENCH_AMQP_URL"])
    params.heartbeat = 0  # one long blocking loop; no heartbeat to miss while a handler runs
    connection = pika.BlockingConnection(params)
    channel = connection.channel()
    channel.basic_qos(prefetch_count=1)
    if DURABLE:
        channel.confirm_delivery()  # basic_publish now waits for the broker's confirm
        target, key, mode = "", EVENT_QUEUE, pika.DeliveryMode.Persistent
    else:
        target, key, mode = EXCHANGE, "", pika.DeliveryMode.Transient
    props = pika.BasicProperties(content_type="application/json", delivery_mode=mode)

    def on_message(ch, method, _properties, body):
        data = json.loads(body)
        kind = data.get("type")
        if kind == "command":
            with db.cursor() as cur:
                try:
                    cur.execute(INSERT, (data["id"], data["name"], data["email"]))
                    event = {"type": "event", "id": data["id"], "seq": data["seq"], "sent_ns": data["sent_ns"]}
                    ch.basic_publish(exchange=target, routing_key=key, body=json.dumps(event), properties=props)
                    db.commit()
                except BaseException:
                    db.rollback()
                    raise
            report("c", data["seq"], method)
        elif kind == "event":
            report("e", data["seq"], method)
        else:
            os.write(1, b"x\n")
        ch.basic_ack(method.delivery_tag)

    channel.basic_consume(QUEUE, on_message)
    if DURABLE:
        channel.basic_consume(EVENT_QUEUE, on_message)

    def stop(*_):
        # Ends start_consuming after the message in hand has been handled and acked.
        connection.add_callback_threadsafe(channel.stop_consuming)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    os.write(1, b"ready\n")
    channel.start_consuming()
    connection.close()
    db.close()


if __name__ == "__main__":
    main()

"""Seed 2's Python publishers (normtomlins/rabbitmq-performance, pika 1.3.2), driven by iobench.

Contract (`iobench impls --help`, workload publish): settings come from the environment
(IOBENCH_AMQP_URL, IOBENCH_QUEUE, IOBENCH_COUNT, IOBENCH_VARIANT, IOBENCH_CONCURRENCY,
IOBENCH_PERSISTENT, IOBENCH_CONFIRM). Print "ready" once every connection is open, wait for a
line on stdin, publish IOBENCH_COUNT messages through the default exchange, print
"result sent=N seconds=S" and exit 0. iobench declares the queue and counts at the broker; the
rate printed here is this program's own account, kept only for contrast.

Variants, as in the seed:
  single-persistent  one thread, persistent messages, confirm_delivery() (each publish waits)
  single             one thread, one reused message dict, transient, no confirms
  threads            N threads, a BlockingConnection each (pika connections are not thread-safe)
  processes          N processes, a connection each
"""

import json
import multiprocessing
import os
import sys
import threading
import time
from datetime import datetime

import pika

URL = os.environ["IOBENCH_AMQP_URL"]
QUEUE = os.environ["IOBENCH_QUEUE"]
COUNT = int(os.environ["IOBENCH_COUNT"])
VARIANT = os.environ.get("IOBENCH_VARIANT", "single")
CONCURRENCY = max(int(os.environ.get("IOBENCH_CONCURRENCY") or 1), 1)
PERSISTENT = os.environ.get("IOBENCH_PERSISTENT") == "1"
CONFIRM = os.environ.get("IOBENCH_CONFIRM") == "1"


def connect():
    """One BlockingConnection and channel, in confirm mode when asked."""
    params = pika.URLParameters(URL)
    params.heartbeat = 0  # the seed's runs are short; no heartbeat thread needed
    conn = pika.BlockingConnection(params)
    channel = conn.channel()
    if CONFIRM:
        channel.confirm_delivery()
    return conn, channel


def publish_range(channel, first, n):
    """Publish ids first..first+n-1 the seed's way: a dict serialised per message."""
    props = pika.BasicProperties(
        content_type="application/json", delivery_mode=2 if PERSISTENT else 1
    )
    message = {"id": 0, "content": "", "timestamp": ""}
    for i in range(first, first + n):
        message["id"] = i
        message["content"] = f"Hello World #{i}"
        message["timestamp"] = datetime.now().isoformat()
        channel.basic_publish(
            exchange="", routing_key=QUEUE, body=json.dumps(message), properties=props
        )
    return n


def split(count, parts):
    """Contiguous id ranges; the remainder goes to the first parts, none is dropped."""
    out, first = [], 0
    for k in range(parts):
        n = count // parts + (1 if k < count % parts else 0)
        out.append((first, n))
        first += n
    return out


def wait_for_go():
    print("ready", flush=True)
    if not sys.stdin.readline():
        sys.exit("stdin closed before the start signal")


def run_single():
    conn, channel = connect()
    wait_for_go()
    start = time.perf_counter()
    sent = publish_range(channel, 0, COUNT)
    elapsed = time.perf_counter() - start
    conn.close()
    return sent, elapsed


def run_threads():
    ranges = split(COUNT, CONCURRENCY)
    ready = threading.Barrier(CONCURRENCY + 1)
    go = threading.Event()
    sent = [0] * CONCURRENCY
    errors = []

    def worker(k):
        try:
            conn, channel = connect()
        except Exception as e:  # reported by the main thread
            errors.append(e)
            ready.abort()
            return
        ready.wait()
        go.wait()
        try:
            sent[k] = publish_range(channel, *ranges[k])
        except Exception as e:
            errors.append(e)
        conn.close()

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(CONCURRENCY)]
    for t in threads:
        t.start()
    try:
        ready.wait()
    except threading.BrokenBarrierError:
        sys.exit(f"a thread could not connect: {errors[0]!r}")
    wait_for_go()
    start = time.perf_counter()
    go.set()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - start
    if errors:
        sys.exit(f"publishing failed: {errors[0]!r}")
    return sum(sent), elapsed


def process_worker(first, n, ready, go, results):
    try:
        conn, channel = connect()
    except Exception as e:
        ready.put(repr(e))
        return
    ready.put("ok")
    go.wait()
    results.put(publish_range(channel, first, n))
    conn.close()


def run_processes():
    ready, results, go = multiprocessing.Queue(), multiprocessing.Queue(), multiprocessing.Event()
    procs = [
        multiprocessing.Process(target=process_worker, args=(first, n, ready, go, results))
        for first, n in split(COUNT, CONCURRENCY)
    ]
    for p in procs:
        p.start()
    for _ in procs:
        status = ready.get()
        if status != "ok":
            for p in procs:
                p.terminate()
            sys.exit(f"a process could not connect: {status}")
    wait_for_go()
    start = time.perf_counter()
    go.set()
    sent = sum(results.get() for _ in procs)
    elapsed = time.perf_counter() - start
    for p in procs:
        p.join()
    return sent, elapsed


VARIANTS = {
    "single-persistent": run_single,
    "single": run_single,
    "threads": run_threads,
    "processes": run_processes,
}


def main():
    run = VARIANTS.get(VARIANT)
    if run is None:
        sys.exit(f"unknown variant {VARIANT!r}; choose from {', '.join(VARIANTS)}")
    sent, elapsed = run()
    print(f"result sent={sent} seconds={elapsed:.6f}", flush=True)


if __name__ == "__main__":
    main()

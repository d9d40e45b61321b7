"""Seed 2's Python publishers (normtomlins/rabbitmq-performance, pika 1.3.2), driven by iobench.

Contract (`iobench impls --help`, workload publish): settings come from the environment
(IOBENCH_AMQP_URL, IOBENCH_QUEUE, IOBENCH_QUEUE_DURABLE, IOBENCH_COUNT, IOBENCH_VARIANT,
IOBENCH_CONCURRENCY, IOBENCH_PERSISTENT, IOBENCH_CONFIRM). Print "ready", wait for a line on
stdin, publish IOBENCH_COUNT messages through the default exchange, print
"result sent=N seconds=S" and exit 0. iobench declares the queue and counts at the broker; the
rate printed here is this program's own account, kept only for contrast. Every variant but
processes connects before "ready"; processes connects after the start signal (its manifest says
connect_after_go), as the seed's timer included its pool's start-up and connects.

Variants, as in the seed (producer_optimized_concurrent_docker.py where it has them):
  single-persistent  one thread, persistent messages, confirm_delivery() (each publish waits)
  single             run_optimized_single_thread: connect and declare, then the clock; one reused
                     message dict, its timestamp left '' as the seed's template did; the
                     connection's close is timed
  threads            N threads, a BlockingConnection each (the seed's code is missing)
  processes          run_multiprocess_test: the clock starts before a ProcessPoolExecutor of N
                     whose workers each connect, declare, publish a contiguous range (a new dict
                     with datetime.now().isoformat() per message) and close
  processes-warm     processes' workers and messages, connected before "go": the pool's start-up
                     and the connects left out of the clock
"""

import json
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
import os
import sys
import threading
import time
from datetime import datetime

import pika

URL = os.environ["IOBENCH_AMQP_URL"]
QUEUE = os.environ["IOBENCH_QUEUE"]
QUEUE_DURABLE = os.environ.get("IOBENCH_QUEUE_DURABLE") == "1"
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


def publish_template(channel, first, n):
    """run_optimized_single_thread's loop: one template dict whose timestamp stays '', a new
    BasicProperties per message, a progress line every 10,000."""
    start = time.perf_counter()
    message = {"id": 0, "content": "Hello World #0", "timestamp": ""}
    for i in range(first, first + n):
        message["id"] = i
        message["content"] = f"Hello World #{i}"
        channel.basic_publish(
            exchange="",
            routing_key=QUEUE,
            body=json.dumps(message),
            properties=pika.BasicProperties(delivery_mode=2 if PERSISTENT else 1),
        )
        if i > 0 and i % 10000 == 0:
            print(f"Sent {i} messages - Rate: {i / (time.perf_counter() - start):.0f} msgs/sec", flush=True)
    return n


def publish_fresh(channel, first, n):
    """process_worker's loop: a new dict with datetime.now().isoformat() and a new BasicProperties
    per message."""
    for i in range(first, first + n):
        message = {
            "id": i,
            "content": f"Hello World #{i}",
            "timestamp": datetime.now().isoformat(),
        }
        channel.basic_publish(
            exchange="",
            routing_key=QUEUE,
            body=json.dumps(message),
            properties=pika.BasicProperties(delivery_mode=2 if PERSISTENT else 1),
        )
    return n


def declare(channel):
    """Declare the queue again as iobench declared it, as the seed's publishers did."""
    channel.queue_declare(queue=QUEUE, durable=QUEUE_DURABLE)


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


def run_single_persistent():
    conn, channel = connect()
    wait_for_go()
    start = time.perf_counter()
    sent = publish_range(channel, 0, COUNT)
    elapsed = time.perf_counter() - start
    conn.close()
    return sent, elapsed


def run_single():
    conn, channel = connect()
    declare(channel)
    wait_for_go()
    start = time.perf_counter()
    sent = publish_template(channel, 0, COUNT)
    conn.close()
    return sent, time.perf_counter() - start


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


def seed_process_worker(first, n):
    """process_worker: connect, declare, publish, close, all on the seed's clock."""
    conn, channel = connect()
    declare(channel)
    sent = publish_fresh(channel, first, n)
    conn.close()
    return sent


def run_processes():
    wait_for_go()
    start = time.perf_counter()
    # fork, as the seed's Linux Python 3.9 did (the default changes in Python 3.14)
    with ProcessPoolExecutor(CONCURRENCY, mp_context=multiprocessing.get_context("fork")) as pool:
        futures = [pool.submit(seed_process_worker, first, n) for first, n in split(COUNT, CONCURRENCY)]
        sent = sum(f.result() for f in futures)
    return sent, time.perf_counter() - start


def warm_process_worker(first, n, ready, go, results):
    try:
        conn, channel = connect()
        declare(channel)
    except Exception as e:
        ready.put(repr(e))
        return
    ready.put("ok")
    go.wait()
    results.put(publish_fresh(channel, first, n))
    conn.close()


def run_processes_warm():
    ready, results, go = multiprocessing.Queue(), multiprocessing.Queue(), multiprocessing.Event()
    procs = [
        multiprocessing.Process(target=warm_process_worker, args=(first, n, ready, go, results))
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
    "single-persistent": run_single_persistent,
    "single": run_single,
    "threads": run_threads,
    "processes": run_processes,
    "processes-warm": run_processes_warm,
}


def main():
    run = VARIANTS.get(VARIANT)
    if run is None:
        sys.exit(f"unknown variant {VARIANT!r}; choose from {', '.join(VARIANTS)}")
    sent, elapsed = run()
    print(f"result sent={sent} seconds={elapsed:.6f}", flush=True)


if __name__ == "__main__":
    main()

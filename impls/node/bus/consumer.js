'use strict';
// Seed 1's bus consumer in Node: amqplib and a pg pool in one process, async, with at most
// IOBENCH_CONCURRENCY handlers in flight and IOBENCH_PREFETCH deliveries held (service-bus's 80
// and 100). For each command: BEGIN; INSERT; publish the event inside the transaction; COMMIT;
// then report and ack.
//
// Contract (docs/IMPLS.md, the bus report stream): settings from IOBENCH_AMQP_URL,
// IOBENCH_DATABASE_URL, IOBENCH_CONCURRENCY, IOBENCH_PREFETCH and IOBENCH_BUS_PROFILE; "ready" on
// stdout once consuming, then one line per message, written in one write before its ack.
// Topology, service-bus's: direct exchange "demo" bound to the durable queue "demo.messages" with
// key "demo"; in the seed profile events go the same way, transient and unconfirmed; in the
// durable profile they are persistent and confirmed, to demo.events through the default exchange,
// which is consumed too.

const fs = require('fs');
const amqp = require('amqplib');
const { Pool } = require('pg');

const EXCHANGE = 'demo';
const QUEUE = 'demo.messages';
const KEY = 'demo';
const EVENT_QUEUE = 'demo.events';
// The seed's INSERT, idempotent on id so that a redelivered command makes no second row.
const INSERT = 'INSERT INTO customers (id, name, email) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING';

const durable = process.env.IOBENCH_BUS_PROFILE === 'durable';
const concurrency = Math.max(parseInt(process.env.IOBENCH_CONCURRENCY || '80', 10), 1);
const prefetch = Math.max(parseInt(process.env.IOBENCH_PREFETCH || '100', 10), 1);

// Unix time in ns: the wall clock once, then the monotonic clock.
const base = BigInt(Date.now()) * 1000000n - process.hrtime.bigint();

// report writes one line in one write(2), before the ack.
function report(kind, seq, msg) {
  const now = base + process.hrtime.bigint();
  fs.writeSync(1, `${kind} ${seq} ${now} ${msg.fields.redelivered ? 1 : 0}\n`);
}

async function main() {
  const pool = new Pool({ connectionString: process.env.IOBENCH_DATABASE_URL, max: concurrency });
  const conn = await amqp.connect(process.env.IOBENCH_AMQP_URL);
  const ch = await conn.createChannel();
  await ch.prefetch(prefetch);
  const pub = durable ? await conn.createConfirmChannel() : ch;
  const [target, key, persistent] = durable ? ['', EVENT_QUEUE, true] : [EXCHANGE, KEY, false];

  // publish resolves once the event is written (seed) or confirmed by the broker (durable).
  function publish(body) {
    if (!durable) {
      ch.publish(target, key, body, { persistent, contentType: 'application/json' });
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      pub.publish(target, key, body, { persistent, contentType: 'application/json' }, (err) => (err ? reject(err) : resolve()));
    });
  }

  async function handle(msg) {
    const data = JSON.parse(msg.content);
    if (data.type === 'command') {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query(INSERT, [data.id, data.name, data.email]);
        await publish(Buffer.from(JSON.stringify({ type: 'event', id: data.id, seq: data.seq, sent_ns: data.sent_ns })));
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
      report('c', data.seq, msg);
    } else if (data.type === 'event') {
      report('e', data.seq, msg);
    } else {
      fs.writeSync(1, 'x\n');
    }
    ch.ack(msg);
  }

  // At most `concurrency` handlers run; deliveries beyond them wait here (at most prefetch held).
  let inFlight = 0;
  const waiting = [];
  let idle = null;
  function start(msg) {
    inFlight++;
    handle(msg).then(finish, (err) => {
      console.error(`handler failed: ${err.stack || err}`);
      process.exit(1);
    });
  }
  function finish() {
    inFlight--;
    if (waiting.length > 0) start(waiting.shift());
    else if (inFlight === 0 && idle) idle();
  }
  function onMessage(msg) {
    if (msg === null) {
      console.error('the broker cancelled the consumer');
      process.exit(1);
    }
    if (inFlight < concurrency) start(msg);
    else waiting.push(msg);
  }

  const queues = durable ? [QUEUE, EVENT_QUEUE] : [QUEUE];
  const tags = [];
  for (const q of queues) {
    tags.push((await ch.consume(q, onMessage)).consumerTag);
  }
  conn.on('close', () => {
    if (!stopping) {
      console.error('the broker connection closed');
      process.exit(1);
    }
  });
  fs.writeSync(1, 'ready\n');

  let stopping = false;
  async function stop() {
    if (stopping) return;
    stopping = true;
    // No new deliveries; handlers in flight finish and ack; what is still waiting is requeued.
    for (const tag of tags) await ch.cancel(tag);
    if (inFlight > 0) await new Promise((resolve) => { idle = resolve; });
    await conn.close();
    await pool.end();
  }
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((err) => {
  console.error(err.stack || String(err));
  process.exit(1);
});

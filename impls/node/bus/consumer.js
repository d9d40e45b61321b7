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
//
// Broker restarts (iobench's --fault restart-broker): amqplib's opt-in recovery reconnects with
// back-off (100 ms doubling to 2 s, given up after about 60 s) and runs `session` on each new
// connection, which opens the channels, declares the queues and consumes again. A handler keeps
// the session its delivery came on: when that session is lost, a failed publish rolls the
// transaction back and reports nothing, and a delivery not yet handled is dropped; the broker
// redelivers both. A message reported whose ack was lost comes back too, and iobench counts it
// twice.
//
// PostgreSQL restarts (--fault restart-postgres): a transaction that fails because the database
// connection was lost (SQLSTATE class 08 or 57P01-57P03, a socket refused or reset, pg's
// "Connection terminated") reports nothing and gives its message back to the broker (a nack with
// requeue, never a reject); its client is destroyed, and the pool opens a new one. A handler that
// finds the database lost first waits out a back-off shared by all handlers (100 ms doubling to
// 2 s), so that the redeliveries do not spin while it is down; after 60 s without it the consumer
// gives up. An idle client's loss is only logged. A COMMIT the restart broke may have committed:
// the redelivery inserts nothing (ON CONFLICT) but publishes the event again, counted twice.

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
// Reconnects: 100 ms doubling to 2 s (amqplib adds ±20% jitter), 39 attempts: about 60 s.
const recovery = { initialDelay: 100, maxDelay: 2000, factor: 2, initialMaxRetries: 0, maxRetries: 39 };
// Without the database for this long (ms) the consumer gives up, as it does without the broker.
const DATABASE_GIVE_UP = 60000;
// Errors that mean the database connection was lost, not that the command failed: SQLSTATE class
// 08 (connection exception) and 57P01-57P03 (the server shutting down, crashed or not up yet), a
// socket refused or reset, and pg's own errors for a connection it saw end.
const LOST_CODES = new Set(['57P01', '57P02', '57P03', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE']);
const LOST_MESSAGE = /^Connection terminated|connection error and is not queryable/;

// Unix time in ns: the wall clock once, then the monotonic clock.
const base = BigInt(Date.now()) * 1000000n - process.hrtime.bigint();

// report writes one line in one write(2), before the ack.
function report(kind, seq, msg) {
  const now = base + process.hrtime.bigint();
  fs.writeSync(1, `${kind} ${seq} ${now} ${msg.fields.redelivered ? 1 : 0}\n`);
}

// fatal ends the consumer with what went wrong: an Error's stack, or a line.
function fatal(what) {
  console.error(what.stack || String(what));
  process.exit(1);
}

// lostDatabase says whether err is the loss of the database connection (Node reports a refused
// connection to each address of a name as one AggregateError of them).
function lostDatabase(err) {
  if (!err) return false;
  const code = typeof err.code === 'string' ? err.code : '';
  if (code.startsWith('08') || LOST_CODES.has(code) || LOST_MESSAGE.test(err.message || '')) return true;
  return Array.isArray(err.errors) && err.errors.some(lostDatabase);
}

// The database's state for the back-off: when it was found lost (0 while it answers), the next
// wait, and the wait under way (null: none).
const database = { lostAt: 0, delay: 0, wait: null };

// databaseLost waits before a handler that lost the database gives its message back. The handlers
// that fail during a wait share it, so that the wait doubles once per round of attempts, not once
// per handler.
async function databaseLost(err) {
  const now = performance.now();
  if (database.lostAt === 0) {
    Object.assign(database, { lostAt: now, delay: recovery.initialDelay });
    console.error(`database lost: ${err.message}; retrying`);
  } else if (now - database.lostAt >= DATABASE_GIVE_UP) {
    fatal(`no database for ${DATABASE_GIVE_UP / 1000} s: ${err.message}`);
  }
  if (!database.wait) {
    const delay = database.delay;
    database.delay = Math.min(delay * recovery.factor, recovery.maxDelay);
    database.wait = new Promise((resolve) => setTimeout(resolve, delay)).then(() => { database.wait = null; });
  }
  await database.wait;
}

// databaseBack ends the back-off once a transaction begun after the loss was found commits (one
// begun before may have committed before the restart).
function databaseBack(started) {
  if (database.lostAt === 0 || started < database.lostAt) return;
  console.error(`database back after ${Math.round(performance.now() - database.lostAt)} ms`);
  database.lostAt = 0;
}

async function main() {
  const pool = new Pool({ connectionString: process.env.IOBENCH_DATABASE_URL, max: concurrency });
  // An idle client whose server went away: the pool has dropped it and opens another when asked.
  pool.on('error', (err) => console.error(`idle database client lost: ${err.message}`));
  const [target, key, persistent] = durable ? ['', EVENT_QUEUE, true] : [EXCHANGE, KEY, false];
  const queues = durable ? [QUEUE, EVENT_QUEUE] : [QUEUE];
  let current = null; // the session consuming now
  let stopping = false;

  // publish resolves once the event is written (seed) or confirmed by the broker (durable).
  function publish(s, body) {
    if (!durable) {
      s.ch.publish(target, key, body, { persistent, contentType: 'application/json' });
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      s.pub.publish(target, key, body, { persistent, contentType: 'application/json' }, (err) => (err ? reject(err) : resolve()));
    });
  }

  // store runs the command's transaction; false when the session was lost under it (rolled back).
  // A lost database throws, and its client is destroyed rather than given back to the pool.
  async function store(s, data) {
    const client = await pool.connect();
    client.on('error', ignore);
    let broken; // the error that makes the client unfit for reuse
    try {
      await client.query('BEGIN');
      await client.query(INSERT, [data.id, data.name, data.email]);
      await publish(s, Buffer.from(JSON.stringify({ type: 'event', id: data.id, seq: data.seq, sent_ns: data.sent_ns })));
      await client.query('COMMIT');
      return true;
    } catch (err) {
      if (!s.lost && lostDatabase(err)) {
        broken = err;
        throw err; // the server ended the transaction with the connection
      }
      await client.query('ROLLBACK').catch((e) => { broken = e; }); // failed: the client is unfit
      if (s.lost) return false;
      throw err;
    } finally {
      client.removeListener('error', ignore);
      client.release(broken);
    }
  }

  // A checked-out client that loses its server (while the event's publish is awaited, say) emits
  // the error, which would throw without a listener; its next query fails with it anyway.
  function ignore() {}

  // command stores and reports a command; false when its message must not be acked.
  async function command(msg, s, data) {
    const started = performance.now();
    try {
      if (!(await store(s, data))) return false; // the broker redelivers it
    } catch (err) {
      if (!lostDatabase(err)) throw err;
      await databaseLost(err);
      giveBack(msg, s);
      return false;
    }
    databaseBack(started);
    report('c', data.seq, msg);
    return true;
  }

  // giveBack returns a message to its queue for redelivery (never a reject); if its session is
  // lost, the broker requeues it anyway.
  function giveBack(msg, s) {
    try {
      s.ch.nack(msg, false, true);
    } catch (err) {
      if (!s.lost) throw err;
    }
  }

  async function handle(msg, s) {
    const data = JSON.parse(msg.content);
    if (data.type === 'command') {
      if (!(await command(msg, s, data))) return;
    } else if (data.type === 'event') {
      report('e', data.seq, msg);
    } else {
      fs.writeSync(1, 'x\n');
    }
    try {
      s.ch.ack(msg);
    } catch (err) {
      if (!s.lost) throw err; // else reported, but its ack is lost: it comes back and counts twice
    }
  }

  // At most `concurrency` handlers run; deliveries beyond them wait here (at most prefetch held).
  let inFlight = 0;
  const waiting = [];
  let idle = null;
  function start(msg, s) {
    if (s.lost) return next(); // its channel is gone: the broker redelivers it
    inFlight++;
    handle(msg, s).then(() => {
      inFlight--;
      next();
    }, (err) => fatal(`handler failed: ${err.stack || err}`));
  }
  function next() {
    if (waiting.length > 0) start(...waiting.shift());
    else if (inFlight === 0 && idle) idle();
  }

  // session opens the channels of a new connection, declares the queues and consumes them.
  async function session(model) {
    const s = { lost: false, tags: [] };
    s.ch = await model.createChannel();
    s.pub = durable ? await model.createConfirmChannel() : s.ch;
    for (const ch of new Set([s.ch, s.pub])) {
      ch.on('close', () => { s.lost = true; });
      ch.on('error', (err) => console.error(`channel error: ${err.message}`));
    }
    await s.ch.prefetch(prefetch);
    for (const q of queues) {
      await s.ch.assertQueue(q, { durable: true });
      const { consumerTag } = await s.ch.consume(q, (msg) => {
        if (msg === null) fatal('the broker cancelled the consumer');
        if (inFlight < concurrency) start(msg, s);
        else waiting.push([msg, s]);
      });
      s.tags.push(consumerTag);
    }
    current = s;
  }

  // A wrong URL fails at once (initialMaxRetries 0); a broker lost later is reconnected to.
  const conn = await amqp.connect(process.env.IOBENCH_AMQP_URL, { recovery: { ...recovery, setup: session } });
  conn.on('error', (err) => console.error(`connection error: ${err.message}`));
  conn.on('disconnect', (err) => console.error(`broker lost: ${err.message}; reconnecting`));
  conn.on('connect', () => console.error('broker connected'));
  conn.on('reconnect-failed', (err) => {
    if (!stopping) fatal(`no broker after ${recovery.maxRetries} reconnect attempts: ${err.message}`);
  });
  fs.writeSync(1, 'ready\n');

  async function stop() {
    if (stopping) return;
    stopping = true;
    // No new deliveries; handlers in flight finish and ack; what is still waiting is requeued.
    for (const tag of current.tags) await current.ch.cancel(tag).catch(() => {});
    if (inFlight > 0) await new Promise((resolve) => { idle = resolve; });
    await conn.close();
    await pool.end();
  }
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch(fatal);

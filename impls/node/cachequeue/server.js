// Seed 3's app (iobench's cachequeue workload) in Node 20: node:http, one event loop.
//
// GET /cache/fake       answers "0\n", touching nothing.
// GET /cache/memcached  increments "visits" in Memcached (memjs, binary protocol, initial value 0:
//                       a missing key is created at 0 and the request answers 0, as the seed's).
// GET /cache/redis      INCR "visits" on Redis DB 1 (ioredis); answers the new value.
// GET /queue/fake       an empty 200, touching nothing.
// GET /queue/zmq        sends "visit" on one PUSH socket (zeromq v6) connected to
//                       IOBENCH_ZMQ_ENDPOINT (iobench, or a consumer, binds the PULL side); with no
//                       peer, messages wait in the socket up to its high-water mark, then sends
//                       wait. A zeromq v6 socket takes one send at a time, so sends are queued.
// GET /queue/redis      LPUSH "queue" "visit" on Redis DB 1; an empty 200.
//
// The seed's Predis routes (/cache/predis, /queue/predis) are a PHP client's: here they answer
// 404, like any other path, with a one-line reason. Each client is made on its first use and
// shared by every request (ioredis pipelines over one connection; memjs keeps one per server).
// Settings come from IOBENCH_LISTEN, IOBENCH_REDIS_URL, IOBENCH_MEMCACHED_ADDR and
// IOBENCH_ZMQ_ENDPOINT; a route whose setting is missing answers 500 with the reason.
'use strict';

const http = require('node:http');
const Redis = require('ioredis');
const memjs = require('memjs');
const zmq = require('zeromq');

const listen = process.env.IOBENCH_LISTEN ?? '127.0.0.1:8080';
const KEY = 'visits';
const LIST = 'queue';
const MESSAGE = 'visit';
const DB = 1;

class Missing extends Error {}

function setting(name) {
  const value = process.env[name];
  if (!value) throw new Missing(`${name} is not set; iobench gives it to runs that use this driver`);
  return value;
}

let redis;
let mc;
let push;
let pushTail = Promise.resolve();

function redisClient() {
  redis ??= new Redis(setting('IOBENCH_REDIS_URL'), { db: DB, lazyConnect: false });
  return redis;
}

function memcachedClient() {
  mc ??= memjs.Client.create(setting('IOBENCH_MEMCACHED_ADDR'), { logger: { log() {} } });
  return mc;
}

// send queues msg behind the sends before it: a zeromq v6 socket refuses a second send while
// one waits (EBUSY).
function send(msg) {
  if (!push) {
    const endpoint = setting('IOBENCH_ZMQ_ENDPOINT');
    push = new zmq.Push({ linger: 0 });
    push.connect(endpoint);
  }
  const sent = pushTail.then(() => push.send(msg));
  pushTail = sent.catch(() => {});
  return sent;
}

const cache = {
  fake: async () => 0,
  redis: () => redisClient().incr(KEY),
  memcached: async () => {
    const { value } = await memcachedClient().increment(KEY, 1, { initial: 0 });
    return value;
  },
};

const queue = {
  fake: async () => {},
  redis: async () => {
    await redisClient().lpush(LIST, MESSAGE);
  },
  zmq: () => send(MESSAGE),
};

function answer(res, status, text) {
  res.writeHead(status, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const server = http.createServer(async (req, res) => {
  const path = req.url.split('?', 1)[0];
  const m = req.method === 'GET' ? /^\/(cache|queue)\/([^/]+)$/.exec(path) : null;
  if (!m) {
    answer(res, 404, `no route ${path}; use /cache/{driver} or /queue/{driver}\n`);
    return;
  }
  const [, test, driver] = m;
  const drivers = test === 'cache' ? cache : queue;
  const run = Object.hasOwn(drivers, driver) ? drivers[driver] : undefined;
  if (!run) {
    answer(res, 404, `no ${test} driver "${driver}"; use one of ${Object.keys(drivers).join(', ')}\n`);
    return;
  }
  try {
    const value = await run();
    answer(res, 200, test === 'cache' ? `${value}\n` : '');
  } catch (e) {
    const status = e instanceof Missing ? 500 : 502;
    answer(res, status, `${test} ${driver}: ${String(e && e.message).replace(/\n/g, ' ')}\n`);
  }
});

const sep = listen.lastIndexOf(':');
server.keepAliveTimeout = 65000;
server.listen(Number(listen.slice(sep + 1)), listen.slice(0, sep));
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close();
  redis?.disconnect();
  mc?.close();
  push?.close();
  process.exit(0);
});

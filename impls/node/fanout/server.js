// Seed 5's service in Node 20: node:http and the built-in fetch (undici), one event loop.
// IOBENCH_FANOUT_CLIENT=agent (the http-agent variant) calls the upstream with node:http's
// keep-alive Agent instead of fetch: the same calls, at well under half of fetch's CPU per call.
//
// GET /sync           awaits the call, then the work: one after the other.
// GET /async          the seed's shape: the call is created (fetch starts it at once: a promise is
//                     eager), the work is awaited, then the call: so in Node it overlaps.
// GET /async-overlap  the call and the work awaited together (Promise.all).
//
// Work is an awaited 10 ms timer, not a blocking sleep: the request makes no progress, the event
// loop runs other requests meanwhile (a blocking sleep would stop them all). Every answer is the
// upstream's JSON, re-encoded, with Server-Timing: app;dur=MS; any other path answers 404 with a
// one-line reason. Settings come from IOBENCH_LISTEN, IOBENCH_UPSTREAM_URL and IOBENCH_WORK_MS.
'use strict';

const http = require('node:http');
const { setTimeout: sleep } = require('node:timers/promises');

const upstream = process.env.IOBENCH_UPSTREAM_URL;
const work = Number(process.env.IOBENCH_WORK_MS ?? '10');
const listen = process.env.IOBENCH_LISTEN ?? '127.0.0.1:8080';
if (!upstream || !(work >= 0)) {
  console.error('node-fanout: set IOBENCH_UPSTREAM_URL and IOBENCH_WORK_MS (milliseconds, 0 or more)');
  process.exit(2);
}

async function fetchCall() {
  const r = await fetch(upstream, { headers: { accept: 'application/json' } });
  if (!r.ok) throw new Error(`upstream answered ${r.status}`);
  return r.json();
}

// agent keeps the upstream's connections open across calls, as fetch's own dispatcher does.
const agent = new http.Agent({ keepAlive: true });

function agentCall() {
  return new Promise((resolve, reject) => {
    const req = http.get(upstream, { agent, headers: { accept: 'application/json' } }, (r) => {
      let text = '';
      r.setEncoding('utf8');
      r.on('data', (chunk) => { text += chunk; });
      r.on('end', () => {
        if (r.statusCode !== 200) return reject(new Error(`upstream answered ${r.statusCode}`));
        try { resolve(JSON.parse(text)); } catch (e) { reject(e); }
      });
      r.on('error', reject);
    });
    req.on('error', reject);
  });
}

const clients = { fetch: fetchCall, agent: agentCall };
const call = clients[process.env.IOBENCH_FANOUT_CLIENT ?? 'fetch'];
if (!call) {
  console.error(`node-fanout: IOBENCH_FANOUT_CLIENT must be one of ${Object.keys(clients).join(', ')}`);
  process.exit(2);
}

const routes = {
  '/sync': async () => {
    const body = await call();
    await sleep(work);
    return body;
  },
  '/async': async () => {
    const pending = call(); // fetch sends now
    await sleep(work);
    return pending;
  },
  '/async-overlap': async () => {
    const [body] = await Promise.all([call(), sleep(work)]);
    return body;
  },
};

const server = http.createServer(async (req, res) => {
  const route = req.method === 'GET' ? routes[req.url] : undefined;
  if (!route) {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end(`no such route: ${req.method} ${req.url}; the routes are GET /sync, /async and /async-overlap\n`);
    return;
  }
  const t0 = process.hrtime.bigint();
  let status = 200;
  let text;
  let type = 'application/json';
  try {
    text = JSON.stringify(await route());
  } catch (e) {
    status = 502;
    type = 'text/plain';
    text = `upstream: ${String(e && e.message).replace(/\n/g, ' ')}\n`;
  }
  const dur = Number(process.hrtime.bigint() - t0) / 1e6;
  res.writeHead(status, {
    'content-type': type,
    'content-length': Buffer.byteLength(text),
    'server-timing': `app;dur=${dur.toFixed(3)}`,
  });
  res.end(text);
});

const sep = listen.lastIndexOf(':');
server.keepAliveTimeout = 65000;
server.listen(Number(listen.slice(sep + 1)), listen.slice(0, sep));
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});

// Seed 4's NodeJS server (dbalabka/aerys-benchmark, nodejs/server.js) on Node's own `http`:
// one process, one event loop. GET / answers 200 "Hello world!" (12 bytes, text/plain;
// charset=utf-8); anything else 404 with a one-line reason. As in the seed, no Date header
// (sendDate = false).
//
// Variants (IOBENCH_VARIANT):
//   keep-alive  Node's default: HTTP/1.1 connections stay open between requests (the seed's run)
//   close       every response says "Connection: close" and Node closes the connection after it,
//               so each request pays for a new connection (the seed's later no-keep-alive runs)
//
// Listens on IOBENCH_LISTEN (host:port); SIGTERM or SIGINT stops it.
'use strict';

const http = require('http');

const variant = process.env.IOBENCH_VARIANT || 'keep-alive';
if (variant !== 'keep-alive' && variant !== 'close') {
  console.error(`node-hello: unknown variant ${JSON.stringify(variant)}; use keep-alive or close`);
  process.exit(2);
}
const closeEach = variant === 'close';

const HELLO = Buffer.from('Hello world!');
const NOT_FOUND = Buffer.from('not found: only GET / is served\n');

const server = http.createServer((req, res) => {
  res.sendDate = false;
  let status = 200;
  let body = HELLO;
  if (req.method !== 'GET' || req.url !== '/') {
    status = 404;
    body = NOT_FOUND;
  }
  const headers = {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': body.length,
  };
  if (closeEach) {
    headers.Connection = 'close';
  }
  res.writeHead(status, headers);
  res.end(body);
});

const listen = process.env.IOBENCH_LISTEN || '127.0.0.1:8080';
const colon = listen.lastIndexOf(':');
const host = listen.slice(0, colon).replace(/^\[|\]$/g, '') || '127.0.0.1';
const port = Number(listen.slice(colon + 1));

server.on('error', (err) => {
  console.error(`node-hello: cannot listen on ${listen}: ${err.message}`);
  process.exit(2);
});
server.listen(port, host, () => {
  console.log(`node-hello (${variant}): pid ${process.pid}, listening on http://${listen}/`);
});

for (const sig of ['SIGTERM', 'SIGINT']) {
  process.on(sig, () => {
    server.close();
    server.closeAllConnections();
    process.exit(0);
  });
}

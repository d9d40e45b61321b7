// Seed 4's NodeJS server (dbalabka/aerys-benchmark, nodejs/server.js) on Node's own `http`:
// one process, one event loop. GET / answers 200 "Hello world!" (12 bytes, text/plain;
// charset=utf-8); anything else 404 with a one-line reason. As in the seed, no Date header
// (sendDate = false).
//
// Variants (IOBENCH_VARIANT):
//   keep-alive  Node's default: HTTP/1.1 connections stay open between requests (the seed's run)
//   close       every response says "Connection: close" and Node closes the connection after it,
//               so each request pays for a new connection (the seed's later no-keep-alive runs)
//   http2       Node's `http2` module: HTTP/2 with prior knowledge (h2c), and HTTP/1.1 on the same
//               port, told apart by the HTTP/2 connection preface (the same handler answers both)
//
// Listens on IOBENCH_LISTEN (host:port); SIGTERM or SIGINT stops it.
'use strict';

const http = require('http');
const http2 = require('http2');
const net = require('net');

const VARIANTS = ['keep-alive', 'close', 'http2'];
const variant = process.env.IOBENCH_VARIANT || 'keep-alive';
if (!VARIANTS.includes(variant)) {
  console.error(`node-hello: unknown variant ${JSON.stringify(variant)}; use ${VARIANTS.join(', ')}`);
  process.exit(2);
}
const closeEach = variant === 'close';

const HELLO = Buffer.from('Hello world!');
const NOT_FOUND = Buffer.from('not found: only GET / is served\n');

// hello answers one request, from `http` or from `http2`'s compatibility API alike.
function hello(req, res) {
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
}

// PREFACE is how an HTTP/2 client with prior knowledge opens its connection (RFC 9113, 3.4).
const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

// both returns a server answering h2c with prior knowledge and HTTP/1.1 on one port: it reads a
// connection's first bytes until they match the preface or cannot, puts them back and hands the
// socket to the http2 or the http server. (Node's plain-TCP http2 server speaks HTTP/2 alone:
// its allowHTTP1 is for TLS.)
function both() {
  const h1 = http.createServer(hello);
  const h2 = http2.createServer({}, hello);
  const sockets = new Set();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let head = Buffer.alloc(0);
    const onData = (chunk) => {
      head = Buffer.concat([head, chunk]);
      const n = Math.min(head.length, PREFACE.length);
      const h2c = head.subarray(0, n).equals(PREFACE.subarray(0, n));
      if (h2c && n < PREFACE.length) {
        return; // a prefix of the preface: wait for more
      }
      socket.removeListener('data', onData);
      socket.pause();
      socket.unshift(head);
      if (h2c) {
        h2.emit('connection', socket); // the session reads what is buffered on its next tick
      } else {
        h1.emit('connection', socket);
        socket.resume();
      }
    };
    socket.on('data', onData);
    socket.on('error', () => socket.destroy());
  });
  server.closeAllConnections = () => sockets.forEach((s) => s.destroy());
  return server;
}

const server = variant === 'http2' ? both() : http.createServer(hello);

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

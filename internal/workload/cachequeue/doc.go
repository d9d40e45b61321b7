// Package cachequeue is the cachequeue workload (seed 3, CthulhuDen/php-cache-queue): an HTTP
// service with cache routes, /cache/{fake,memcached,redis,predis}, that increment the counter
// "visits" and answer it, and queue routes, /queue/{fake,zmq,redis,predis}, that push "visit".
// Every impl keeps the seed's stores: Redis DB 1 (the counter and the list "queue"), except the
// Predis cache route on DB 0; Memcached's "visits"; a ZeroMQ PUSH to IOBENCH_ZMQ_ENDPOINT. Fake
// routes touch nothing.
//
// A run is counted in the store: the store is read when the impl is ready and again once the
// load has drained (no new requests after the deadline, those in flight finish), and its change
// must lie between the responses iobench saw over the whole run (warm-up and drain included) and
// those plus the requests that got no answer (a request the service handled after iobench gave
// up on it). Anything else fails the run with the counts. With no consumer, the ZeroMQ route's
// messages wait in the app's PUSH sockets (up to their high-water mark, after which a send
// blocks: the seed's "cliff"); iobench then binds a PULL socket on the endpoint itself and
// drains them, counting what arrives.
package cachequeue

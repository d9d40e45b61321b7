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
//
// A run may ask for the route's consumer (consumers: true, --consumers): the command the impl's
// manifest gives for that queue route (workloads.cachequeue.consumers, checked by the
// workload's Section hook; php-cachequeue's are the seed's redispopper.php and zmqserver.php).
// iobench starts it through sut (impl.Installation.StartHelper) once the store's baseline is
// read and before any load, so that a ZeroMQ consumer has bound the endpoint before the app
// pushes; iobench then binds nothing there. After the load it waits until the consumer has run
// dry (its "Processed N entries", or idle since before the end), stops it and reads its
// "total N": the store's change (a Redis list's length after minus before, negative when the
// consumer also took what earlier runs left; nothing for ZeroMQ) plus that total must lie
// within the same bounds. Its progress lines ("received N T", the time of its Nth message) give
// its drain rate from the end of the warm-up to its last message, and its lag: the messages not
// yet received when the load ended, interpolated between those lines, and how long after the
// end its last one came. It is recorded as a sut process of its own, so the report counts its
// cost as the impl's. A route the impl declares no consumer for runs without one, and the
// record says so.
package cachequeue

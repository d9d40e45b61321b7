// Package service starts, probes and stops the backing servers that benchmarks run against:
// RabbitMQ, PostgreSQL, Redis, Memcached and nginx from the binaries installed on the machine, and NATS
// (with JetStream) embedded in the iobench process, so a first run needs nothing installed.
//
// Ensure is what a run calls. It takes, in order: the server named by the environment
// (IOBENCH_AMQP_URL, IOBENCH_DATABASE_URL, IOBENCH_REDIS_URL, IOBENCH_MEMCACHED_ADDR,
// IOBENCH_NATS_URL); the one `iobench services up` left running, found in the state file of the
// state directory; or a new private instance from Start, which the caller must Stop.
//
// Every instance iobench starts is private and local: free ports of 127.0.0.1 (below the kernel's
// ephemeral range, so outgoing connections cannot take them), every listener on loopback, its own
// data and logs in StateDir/<name>-<port>, never the system's configuration (/etc/rabbitmq, the
// Debian "main" PostgreSQL cluster). As root each server runs as its Debian system user
// (rabbitmq, postgres, redis, memcache). RabbitMQ gets a node name, cookie and epmd of its own.
//
// Each server is the leader of a session of its own, so that Stop can find and end everything it
// forked (the Erlang VM and its helpers, PostgreSQL backends) and a terminal's Ctrl-C does not
// reach it before iobench has stopped cleanly. Servers of a run also get a parent-death signal, so
// a crashed or killed iobench leaves no orphans; only `iobench services up` (Up) starts servers
// meant to outlive the command, recorded in the state file until `iobench services down` (Down).
//
// An owned local instance can Restart in place (same ports, same data) for fault injection.
//
// nginx and PHP-FPM serve a PHP impl, so what they serve is given per run rather than shared:
// StartNginx starts a private nginx (as www-data when root) that hands every request of a port to
// one FastCGI script; PHPFPMPool.Prepare writes a private PHP-FPM configuration (one static pool,
// a unix socket beside it) and returns its command line, which package impl runs through package
// sut, since PHP-FPM's process tree is the impl's cost. Neither is one of Names(): `services up`
// does not start them.
//
// Readiness is a real protocol session with login (AMQP handshake, SQL query, PING, version),
// polled with a deadline; a server that exits or does not answer in time is killed, its
// directory kept, and the error ends with the last lines of its log.
package service

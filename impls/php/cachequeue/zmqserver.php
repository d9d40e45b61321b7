<?php
// zmqserver: seed 3's optional ZeroMQ consumer, run as `php zmqserver.php` beside the app. It
// binds a PULL socket to IOBENCH_ZMQ_ENDPOINT, which the /queue/zmq route's PUSH sockets connect
// to, and receives endlessly (1 s receive timeout). It prints "ready" once bound, the seed's
// "Processed N entries" each time the queue runs dry, "received N T" as it goes (App\Consumer),
// and "total N" when stopped (SIGTERM or SIGINT).

declare(strict_types=1);

require __DIR__ . '/bootstrap.php';

$consumer = new \App\Consumer();
$pull = new \ZMQSocket(new \ZMQContext(1), \ZMQ::SOCKET_PULL);
$pull->setSockOpt(\ZMQ::SOCKOPT_RCVTIMEO, 1000);
$pull->bind(\App\Settings::zmqEndpoint());
$consumer->run(static fn (): bool => $pull->recv() !== false);

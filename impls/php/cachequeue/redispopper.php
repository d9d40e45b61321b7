<?php
// redispopper: seed 3's optional Redis consumer, run as `php redispopper.php` beside the app.
// It pops the queue the /queue/redis and /queue/predis routes push to (BRPOP on DB 1, 1 s
// timeout) endlessly. It prints "ready" once connected, the seed's "Processed N entries" each
// time the queue runs dry, "received N T" as it goes (App\Consumer), and "total N" when stopped
// (SIGTERM or SIGINT).

declare(strict_types=1);

require __DIR__ . '/bootstrap.php';

$consumer = new \App\Consumer();
$queue = \App\Queue\Redis::create();
$consumer->run(static fn (): bool => $queue->pop() !== null);

<?php
// Front controller of seed 3's app (CthulhuDen/php-cache-queue): nginx hands it every request.
// GET /cache/{fake,memcached,redis,predis} increments a counter and prints it;
// GET /queue/{fake,zmq,redis,predis} pushes "visit". Anything else is a 404 with one line.

declare(strict_types=1);

require __DIR__ . '/../bootstrap.php';

$path = strtok($_SERVER['REQUEST_URI'] ?? '/', '?');
$segments = explode('/', $path);
array_shift($segments);

$tests = [
    'cache' => \App\Test\Cache::class,
    'queue' => \App\Test\Queue::class,
];

try {
    $name = $segments[0] ?? '';
    if (!isset($tests[$name]) || count($segments) !== 2 || $segments[1] === '') {
        throw new \App\NotFound("no route $path; use /cache/{driver} or /queue/{driver}");
    }
    $tests[$name]::create()->run($segments[1]);
} catch (\App\NotFound $e) {
    http_response_code(404);
    echo $e->getMessage(), "\n";
}

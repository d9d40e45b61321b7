<?php

declare(strict_types=1);

namespace App\Test;

use App\NotFound;

/** Queue is the /queue/{driver} test: a new client of the driver pushes "visit"; the body is empty. */
final class Queue
{
    public const MESSAGE = 'visit';

    private const DRIVERS = [
        'fake' => \App\Queue\Fake::class,
        'zmq' => \App\Queue\Zmq::class,
        'redis' => \App\Queue\Redis::class,
        'predis' => \App\Queue\Predis::class,
    ];

    public static function create(): self
    {
        return new self();
    }

    public function run(string $driver): void
    {
        if (!isset(self::DRIVERS[$driver])) {
            throw NotFound::driver('queue', $driver, self::DRIVERS);
        }
        $client = (self::DRIVERS[$driver])::create();
        $client->push(self::MESSAGE);
    }
}

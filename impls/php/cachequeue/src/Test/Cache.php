<?php

declare(strict_types=1);

namespace App\Test;

use App\NotFound;

/** Cache is the /cache/{driver} test: a new client of the driver increments the counter and prints it. */
final class Cache
{
    private const DRIVERS = [
        'fake' => \App\Cache\Fake::class,
        'memcached' => \App\Cache\Memcached::class,
        'redis' => \App\Cache\Redis::class,
        'predis' => \App\Cache\Predis::class,
    ];

    public static function create(): self
    {
        return new self();
    }

    public function run(string $driver): void
    {
        if (!isset(self::DRIVERS[$driver])) {
            throw NotFound::driver('cache', $driver, self::DRIVERS);
        }
        $client = (self::DRIVERS[$driver])::create();
        echo $client->increment(), "\n";
    }
}

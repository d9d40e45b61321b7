<?php

declare(strict_types=1);

namespace App\Cache;

use App\Redis\Connect;

/** Redis counts with ext-redis: INCR on DB 1 over the persistent connection "spdtst/general". */
final class Redis implements Counter
{
    private function __construct(private \Redis $client)
    {
    }

    public static function create(): self
    {
        return new self(Connect::phpredis('spdtst/general'));
    }

    public function increment(): int
    {
        return $this->client->incr(self::KEY);
    }
}

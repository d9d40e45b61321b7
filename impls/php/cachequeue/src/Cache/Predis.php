<?php

declare(strict_types=1);

namespace App\Cache;

use App\Redis\Connect;

/**
 * Predis counts with the pure-PHP client: INCR over the persistent connection "spdtst/general",
 * with no SELECT, so on DB 0 (the seed's only route that does not use DB 1).
 */
final class Predis implements Counter
{
    private function __construct(private \Predis\Client $client)
    {
    }

    public static function create(): self
    {
        return new self(Connect::predis('spdtst/general'));
    }

    public function increment(): int
    {
        return $this->client->incr(self::KEY);
    }
}

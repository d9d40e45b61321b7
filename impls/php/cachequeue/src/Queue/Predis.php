<?php

declare(strict_types=1);

namespace App\Queue;

use App\Redis\Connect;

/** Predis pushes with the pure-PHP client: SELECT 1, then LPUSH queue, over the persistent connection "spdtst/queue". */
final class Predis implements Pusher
{
    private function __construct(private \Predis\Client $client)
    {
    }

    public static function create(): self
    {
        $client = Connect::predis('spdtst/queue');
        $client->select(Connect::DB);
        return new self($client);
    }

    public function push(string $message): void
    {
        $this->client->lpush(self::LIST, $message);
    }
}

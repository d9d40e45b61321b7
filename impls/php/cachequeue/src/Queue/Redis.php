<?php

declare(strict_types=1);

namespace App\Queue;

use App\Redis\Connect;

/** Redis pushes with ext-redis: LPUSH queue on DB 1 over the persistent connection "spdtst/queue". */
final class Redis implements Pusher
{
    private function __construct(private \Redis $client)
    {
    }

    public static function create(): self
    {
        return new self(Connect::phpredis('spdtst/queue'));
    }

    public function push(string $message): void
    {
        $this->client->lPush(self::LIST, $message);
    }

    /** pop waits up to a second for the oldest message (BRPOP); null when none came. */
    public function pop(): ?string
    {
        $got = $this->client->brPop([self::LIST], 1);
        return $got ? $got[1] : null;
    }
}

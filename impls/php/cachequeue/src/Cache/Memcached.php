<?php

declare(strict_types=1);

namespace App\Cache;

use App\Settings;

/**
 * Memcached counts with ext-memcached over a persistent client (id "spdtst/general"), set up on
 * its first use in the worker: the binary protocol, which increment's initial value needs. As in
 * the seed, a missing key is created at 0, so the first increment returns 0.
 */
final class Memcached implements Counter
{
    private function __construct(private \Memcached $client)
    {
    }

    public static function create(): self
    {
        $client = new \Memcached('spdtst/general');
        if (!$client->getOption(\Memcached::OPT_BINARY_PROTOCOL)) {
            // A new persistent client: no hook runs once, so its options tell.
            $server = Settings::memcached();
            $client->setOption(\Memcached::OPT_BINARY_PROTOCOL, true);
            $client->addServer($server['host'], $server['port']);
        }
        return new self($client);
    }

    public function increment(): int
    {
        $value = $this->client->increment(self::KEY, 1, 0);
        if ($value === false) {
            throw new \RuntimeException('memcached increment failed: ' . $this->client->getResultMessage());
        }
        return $value;
    }
}

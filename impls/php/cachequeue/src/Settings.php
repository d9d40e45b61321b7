<?php

declare(strict_types=1);

namespace App;

/**
 * Settings reads where the drivers' servers are from the environment iobench gives (docs/IMPLS.md):
 * IOBENCH_REDIS_URL (redis://[:password@]host:port), IOBENCH_MEMCACHED_ADDR (host:port) and
 * IOBENCH_ZMQ_ENDPOINT (ipc:///path or tcp://host:port).
 */
final class Settings
{
    /** @return array{host: string, port: int, password: ?string} */
    public static function redis(): array
    {
        $url = self::require('IOBENCH_REDIS_URL');
        $parts = parse_url($url);
        if ($parts === false || ($parts['scheme'] ?? '') !== 'redis' || !isset($parts['host'])) {
            throw new \RuntimeException("IOBENCH_REDIS_URL=$url is not redis://host:port");
        }
        $password = isset($parts['pass']) ? rawurldecode($parts['pass']) : null;
        return ['host' => $parts['host'], 'port' => $parts['port'] ?? 6379, 'password' => $password];
    }

    /** @return array{host: string, port: int} */
    public static function memcached(): array
    {
        $addr = self::require('IOBENCH_MEMCACHED_ADDR');
        $colon = strrpos($addr, ':');
        if ($colon === false) {
            throw new \RuntimeException("IOBENCH_MEMCACHED_ADDR=$addr is not host:port");
        }
        return ['host' => substr($addr, 0, $colon), 'port' => (int) substr($addr, $colon + 1)];
    }

    public static function zmqEndpoint(): string
    {
        return self::require('IOBENCH_ZMQ_ENDPOINT');
    }

    private static function require(string $name): string
    {
        $value = getenv($name);
        if ($value === false || $value === '') {
            throw new \RuntimeException("$name is not set; iobench gives it to runs that use this driver");
        }
        return $value;
    }
}

<?php

declare(strict_types=1);

namespace App\Redis;

use App\Settings;

/** Connect builds the seed's Redis clients, each over a persistent connection of the worker. */
final class Connect
{
    /** The database the seed's routes use, all but the Predis cache route. */
    public const DB = 1;

    /** phpredis returns an ext-redis client on the persistent connection $id, on DB 1. */
    public static function phpredis(string $id): \Redis
    {
        $server = Settings::redis();
        $client = new \Redis();
        $client->pconnect($server['host'], $server['port'], 0, $id);
        if ($server['password'] !== null) {
            $client->auth($server['password']);
        }
        $client->select(self::DB);
        return $client;
    }

    /** predis returns a Predis client (profile 3.2) on the persistent connection $id, on DB 0 until told otherwise. */
    public static function predis(string $id): \Predis\Client
    {
        $server = Settings::redis();
        $parameters = ['host' => $server['host'], 'port' => $server['port'], 'persistent' => $id];
        if ($server['password'] !== null) {
            $parameters['password'] = $server['password'];
        }
        return new \Predis\Client($parameters, ['profile' => '3.2']);
    }
}

<?php

declare(strict_types=1);

namespace App;

use Psr\Container\ContainerInterface;

/** The few services the SendersLocator looks up by name: the transports, in place of a DI container. */
final class Services implements ContainerInterface
{
    /** @param array<string, object> $services */
    public function __construct(private array $services)
    {
    }

    public function get(string $id)
    {
        return $this->services[$id];
    }

    public function has(string $id): bool
    {
        return isset($this->services[$id]);
    }
}

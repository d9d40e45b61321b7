<?php

declare(strict_types=1);

namespace App;

/** NotFound is a request for a route or driver the app does not have: a 404 with its message. */
final class NotFound extends \RuntimeException
{
    /** @param array<string, class-string> $drivers */
    public static function driver(string $test, string $driver, array $drivers): self
    {
        return new self("no $test driver \"$driver\"; use one of " . implode(', ', array_keys($drivers)));
    }
}

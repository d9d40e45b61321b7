<?php

declare(strict_types=1);

namespace App\Queue;

/** Fake is the reference driver: it touches nothing. */
final class Fake implements Pusher
{
    public static function create(): self
    {
        return new self();
    }

    public function push(string $message): void
    {
    }
}

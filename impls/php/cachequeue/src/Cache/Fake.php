<?php

declare(strict_types=1);

namespace App\Cache;

/** Fake is the reference driver: it touches nothing and counts 0. */
final class Fake implements Counter
{
    public static function create(): self
    {
        return new self();
    }

    public function increment(): int
    {
        return 0;
    }
}

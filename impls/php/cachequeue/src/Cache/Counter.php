<?php

declare(strict_types=1);

namespace App\Cache;

/** Counter is a cache driver: create() builds a new client (over persistent connections), increment() adds one to "visits". */
interface Counter
{
    public const KEY = 'visits';

    public static function create(): self;

    /** increment adds one to the counter and returns its new value. */
    public function increment(): int;
}

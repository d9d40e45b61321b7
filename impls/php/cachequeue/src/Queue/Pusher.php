<?php

declare(strict_types=1);

namespace App\Queue;

/** Pusher is a queue driver: create() builds a new client (over persistent connections), push() enqueues one message. */
interface Pusher
{
    /** The Redis list the seed pushes to. */
    public const LIST = 'queue';

    public static function create(): self;

    public function push(string $message): void;
}

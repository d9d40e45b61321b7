<?php

declare(strict_types=1);

namespace App;

/** The seed's event, dispatched inside the command's transaction: the id (plus seq and sent_ns). */
final class CustomerStored
{
    public string $type = 'event';

    public function __construct(
        public string $id,
        public int $seq,
        public int $sent_ns,
    ) {
    }
}

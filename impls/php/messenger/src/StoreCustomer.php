<?php

declare(strict_types=1);

namespace App;

/** The seed's command: a customer to store (plus iobench's type, seq and sent_ns). */
final class StoreCustomer
{
    public string $type = 'command';

    public function __construct(
        public string $id,
        public string $name,
        public string $email,
        public int $seq,
        public int $sent_ns,
    ) {
    }
}

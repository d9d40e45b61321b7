<?php

declare(strict_types=1);

namespace App;

/** The seed's event handler: nothing (its debug log line was disabled); the Worker acks. */
final class CustomerStoredHandler
{
    public function __invoke(CustomerStored $message): void
    {
    }
}

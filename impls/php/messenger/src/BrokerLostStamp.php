<?php

declare(strict_types=1);

namespace App;

use Symfony\Component\Messenger\Stamp\StampInterface;

/**
 * Marks a received message whose handler failed because the broker was lost under it (its event
 * could not be published; the transaction rolled back). The fixed variant neither reports it as
 * failed nor rejects it: the broker redelivers it.
 */
final class BrokerLostStamp implements StampInterface
{
    public function __construct(public string $reason)
    {
    }
}

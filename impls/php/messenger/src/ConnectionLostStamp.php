<?php

declare(strict_types=1);

namespace App;

use Symfony\Component\Messenger\Stamp\StampInterface;

/**
 * Marks a received message whose handler failed because a connection was lost under it: the
 * broker's (its event could not be published) or the database's (PostgreSQL restarted); the
 * transaction did not commit. The fixed variant neither reports it as failed nor rejects it: the
 * broker redelivers it.
 */
final class ConnectionLostStamp implements StampInterface
{
    public function __construct(public string $reason)
    {
    }
}

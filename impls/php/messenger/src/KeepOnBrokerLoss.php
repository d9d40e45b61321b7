<?php

declare(strict_types=1);

namespace App;

use Symfony\Component\Messenger\Envelope;
use Symfony\Component\Messenger\Exception\TransportException;
use Symfony\Component\Messenger\Transport\Receiver\ReceiverInterface;

/**
 * The fixed variant's receiver: the transport's own, except that it does not reject a message
 * whose handler lost the broker (BrokerLostStamp), which Messenger's reject would drop (a nack
 * without requeue). It throws instead, which ends the Worker; the consumer's loop starts a new
 * one on new connections, and the broker requeues the message once the old connection is gone.
 */
final class KeepOnBrokerLoss implements ReceiverInterface
{
    public function __construct(private ReceiverInterface $receiver)
    {
    }

    public function get(): iterable
    {
        return $this->receiver->get();
    }

    public function ack(Envelope $envelope): void
    {
        $this->receiver->ack($envelope);
    }

    public function reject(Envelope $envelope): void
    {
        $lost = $envelope->last(BrokerLostStamp::class);
        if ($lost !== null) {
            throw new TransportException('broker lost while handling a message (not rejected): ' . $lost->reason);
        }
        $this->receiver->reject($envelope);
    }
}

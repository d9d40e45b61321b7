<?php

declare(strict_types=1);

namespace App;

use Symfony\Component\Messenger\Bridge\Amqp\Transport\AmqpReceivedStamp;
use Symfony\Component\Messenger\Bridge\Amqp\Transport\Connection;
use Symfony\Component\Messenger\Envelope;
use Symfony\Component\Messenger\Exception\TransportException;
use Symfony\Component\Messenger\Transport\Receiver\ReceiverInterface;

/**
 * The fixed variant's receiver: the transport's own, except that it does not reject a message
 * whose handler lost a connection (ConnectionLostStamp), which Messenger's reject would drop (a
 * nack without requeue). It gives the message back to the broker (a nack with requeue; on a lost
 * broker the broker requeues it itself) and throws, which ends the Worker; the Supervisor starts
 * a new one on new connections.
 */
final class KeepOnConnectionLoss implements ReceiverInterface
{
    /** @param Connection $connection the AMQP connection $receiver gets its messages on */
    public function __construct(private ReceiverInterface $receiver, private Connection $connection)
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
        $lost = $envelope->last(ConnectionLostStamp::class);
        if ($lost === null) {
            $this->receiver->reject($envelope);

            return;
        }
        $received = $envelope->last(AmqpReceivedStamp::class);
        try {
            $this->connection->nack($received->getAmqpEnvelope(), $received->getQueueName(), \AMQP_REQUEUE);
        } catch (\Throwable) {
            // the broker is gone: it requeues what the connection held
        }
        throw new TransportException('connection lost while handling a message (given back): ' . $lost->reason);
    }
}

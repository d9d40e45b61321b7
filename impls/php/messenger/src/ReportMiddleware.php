<?php

declare(strict_types=1);

namespace App;

use Doctrine\DBAL\Connection;
use Symfony\Component\Messenger\Bridge\Amqp\Transport\AmqpReceivedStamp;
use Symfony\Component\Messenger\Envelope;
use Symfony\Component\Messenger\Exception\HandlerFailedException;
use Symfony\Component\Messenger\Middleware\MiddlewareInterface;
use Symfony\Component\Messenger\Middleware\StackInterface;
use Symfony\Component\Messenger\Stamp\ReceivedStamp;

/**
 * iobench's bus report stream: after the handler of a received message returns, one line on
 * stdout ("c SEQ UNIX_NS R" for a command, "e ..." for an event), written in one write before the
 * Worker acks; "f ..." for a command whose handler threw, before the Worker rejects it. In the
 * fixed variant a handler that failed because the broker or the database was lost under it (Lost)
 * is no failure of the command: nothing is reported, and the message is stamped
 * ConnectionLostStamp so that it is not rejected either.
 */
final class ReportMiddleware implements MiddlewareInterface
{
    public function __construct(private bool $fixed, private Connection $db)
    {
    }

    public function handle(Envelope $envelope, StackInterface $stack): Envelope
    {
        if ($envelope->last(ReceivedStamp::class) === null) {
            return $stack->next()->handle($envelope, $stack);
        }
        $message = $envelope->getMessage();
        $kind = $message instanceof StoreCustomer ? 'c' : 'e';
        try {
            $envelope = $stack->next()->handle($envelope, $stack);
        } catch (\Throwable $throwable) {
            $lost = $this->fixed && $throwable instanceof HandlerFailedException ? Lost::connection($throwable, $this->db) : null;
            if ($lost !== null) {
                throw new HandlerFailedException($throwable->getEnvelope()->with(new ConnectionLostStamp($lost->getMessage())), [$lost]);
            }
            if ($kind === 'c') {
                self::report('f', $message->seq, $envelope);
            }
            throw $throwable;
        }
        self::report($kind, $message->seq, $envelope);

        return $envelope;
    }

    private static function report(string $kind, int $seq, Envelope $envelope): void
    {
        $amqp = $envelope->last(AmqpReceivedStamp::class);
        $redelivered = $amqp !== null && $amqp->getAmqpEnvelope()->isRedelivery() ? 1 : 0;
        fwrite(\STDOUT, sprintf("%s %d %d %d\n", $kind, $seq, (int) (microtime(true) * 1e9), $redelivered));
    }
}

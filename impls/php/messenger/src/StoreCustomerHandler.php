<?php

declare(strict_types=1);

namespace App;

use Doctrine\DBAL\Connection;
use Symfony\Component\Messenger\Bridge\Amqp\Transport\AmqpStamp;
use Symfony\Component\Messenger\MessageBusInterface;

/**
 * The seed's command handler: BEGIN; prepare and execute the INSERT; dispatch CustomerStored
 * through the bus (a synchronous publish, inside the transaction); COMMIT; on any error roll back
 * and rethrow. The seed variant runs the seed's plain INSERT, so a command redelivered after a
 * crash fails on the primary key; the fixed one ignores an id already stored, and rethrows the
 * handler's error even when the rollback fails too (as it does on a lost database connection), so
 * that the loss is what the Worker sees.
 */
final class StoreCustomerHandler
{
    private const SEED_SQL = 'INSERT INTO customers (id, name, email) VALUES (?, ?, ?)';
    private const FIXED_SQL = self::SEED_SQL . ' ON CONFLICT (id) DO NOTHING';

    private string $sql;

    public function __construct(
        private MessageBusInterface $bus,
        private Connection $connection,
        private bool $fixed,
        private int $deliveryMode,
    ) {
        $this->sql = $fixed ? self::FIXED_SQL : self::SEED_SQL;
    }

    public function __invoke(StoreCustomer $message): void
    {
        $this->connection->beginTransaction();
        try {
            $statement = $this->connection->prepare($this->sql);
            $statement->executeStatement([$message->id, $message->name, $message->email]);
            // Messenger 5.4 publishes persistent by default; the seed's 4.2 sent no delivery mode,
            // so transient: the stamp forces the profile's.
            $this->bus->dispatch(
                new CustomerStored($message->id, $message->seq, $message->sent_ns),
                [new AmqpStamp(null, \AMQP_NOPARAM, ['delivery_mode' => $this->deliveryMode])],
            );
            $this->connection->commit();
        } catch (\Throwable $throwable) {
            $this->rollBack();
            throw $throwable;
        }
    }

    private function rollBack(): void
    {
        try {
            $this->connection->rollBack();
        } catch (\Throwable $failed) {
            if (!$this->fixed) {
                throw $failed;
            }
        }
    }
}
